package gitrepo

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/kind"
)

// binWith is a folder holding links to the named programs of this machine,
// to be a PATH with exactly those.
func binWith(t *testing.T, names ...string) string {
	t.Helper()
	bin := t.TempDir()
	for _, name := range names {
		p, err := exec.LookPath(name)
		if err != nil {
			t.Fatalf("%s is not installed: %v", name, err)
		}
		if err := os.Symlink(p, filepath.Join(bin, name)); err != nil {
			t.Fatal(err)
		}
	}
	return bin
}

// TestProbeFindsTheProgramsTheBuildRuns checks that the plan learns what a
// build would run and this machine lacks: git always, GNU patch once there
// are patches (said as patch's own, not as git's), git-lfs with lfs = true.
func TestProbeFindsTheProgramsTheBuildRuns(t *testing.T) {
	const sha = "0123456789abcdef0123456789abcdef01234567"
	withGit := binWith(t, "git")
	empty := t.TempDir()
	tests := []struct {
		name, config, path, blocked string
	}{
		{"git found", pinned("https://example.com/r.git", sha), withGit, ""},
		{"patches and patch found", pinned("https://example.com/r.git", sha, `patches = ["a.patch"]`), binWith(t, "git", "patch"), ""},
		{
			"no git", pinned("https://example.com/r.git", sha), empty,
			"git_repo test needs git: git not found in the build's PATH (" + empty + "): install git (apt-get install git) or add its folder to PATH",
		},
		{
			"patches without patch", pinned("https://example.com/r.git", sha, `patches = ["a.patch"]`), withGit,
			"git_repo test needs GNU patch, which applies the patches git apply refuses: patch not found in the build's PATH (" + withGit + "): install patch (apt-get install patch) or add its folder to PATH",
		},
		{
			"lfs without git-lfs", pinned("https://example.com/r.git", sha, `lfs = true`), withGit,
			"git_repo test needs git-lfs (lfs = true): git-lfs not found in the build's PATH (" + withGit + "): install git-lfs (apt-get install git-lfs) or add its folder to PATH",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := &kind.Node{Addr: addr.Node{Kind: "git_repo", Name: "test"}, Config: decode(t, tt.config), Env: []string{"PATH=" + tt.path}}
			p, err := (&Repo{Git: "git", Patch: "patch"}).Probe(context.Background(), n, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if p != nil {
				got = p.Blocked
			}
			if diff := cmp.Diff(tt.blocked, got); diff != "" {
				t.Errorf("Blocked (-want +got):\n%s", diff)
			}
		})
	}
}
