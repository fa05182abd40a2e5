package gitrepo

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kilnbuild/kiln/engine/kind"
)

func TestVerify(t *testing.T) {
	t.Parallel()
	src := newSource(t)
	sha := src.commit("one", map[string]string{"a.txt": "one\n", "b.txt": "b\n", ".gitignore": "*.egg-info\n"})
	root := t.TempDir()
	attr := writePatches(t, root, []string{"p.patch"}, patchSeries(t, src, "one\npatched\n"))

	tests := []struct {
		name  string
		edit  func(dir string)
		drift string // "" for an intact checkout, else a substring of the drift
	}{
		{"untouched", func(string) {}, ""},
		{"ignored file added", func(dir string) { writeFile(t, filepath.Join(dir, "kiln.egg-info"), "x") }, ""},
		{"touched, same contents", func(dir string) { writeFile(t, filepath.Join(dir, "b.txt"), "b\n") }, ""},
		{"file edited", func(dir string) { writeFile(t, filepath.Join(dir, "b.txt"), "edited\n") }, "working tree changed: M b.txt"},
		{"patch reverted", func(dir string) { writeFile(t, filepath.Join(dir, "a.txt"), "one\n") }, "working tree changed: M a.txt"},
		{"file added", func(dir string) { writeFile(t, filepath.Join(dir, "new.txt"), "n\n") }, "working tree changed: A new.txt"},
		{"file removed", func(dir string) { os.Remove(filepath.Join(dir, "b.txt")) }, "working tree changed: D b.txt"},
		{"HEAD moved", func(dir string) { gitIn(t, dir, "commit", "--quiet", "--allow-empty", "-m", "x") }, "HEAD moved from " + sha},
		{"checkout removed", func(dir string) { os.RemoveAll(dir) }, "checkout missing"},
	}
	state := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := testBuild(t, decode(t, pinned(src.dir, sha, attr)), state, root)
			res := build(t, b)
			rec := &kind.Record{Digest: res.Digest, Dir: b.Dir, Attrs: res.Attrs}
			tt.edit(b.Dir)
			drift, err := testRepo().Verify(context.Background(), &b.Node, rec)
			if err != nil {
				t.Fatal(err)
			}
			if tt.drift == "" && drift != "" || tt.drift != "" && !strings.Contains(drift, tt.drift) {
				t.Errorf("drift = %q, want %q", drift, tt.drift)
			}
			// A second look gives the same answer.
			if again, err := testRepo().Verify(context.Background(), &b.Node, rec); err != nil || again != drift {
				t.Errorf("second Verify = %q, %v; first was %q", again, err, drift)
			}
		})
	}
}

func recordOf(dir string, res *kind.Result) *kind.Record {
	return &kind.Record{Digest: res.Digest, Dir: dir, Attrs: res.Attrs}
}
