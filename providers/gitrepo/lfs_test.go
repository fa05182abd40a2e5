package gitrepo

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestLFS(t *testing.T) {
	t.Parallel()
	if err := exec.Command("git", "lfs", "version").Run(); err != nil {
		t.Skip("git-lfs is not installed")
	}
	src := newSource(t)
	gitIn(t, src.dir, "lfs", "install", "--local")
	gitIn(t, src.dir, "lfs", "track", "*.bin")
	writeFile(t, filepath.Join(src.dir, "weights.bin"), "large weights\n")
	sha := src.commit("weights", map[string]string{"a.txt": "one\n"})

	b := testBuild(t, decode(t, pinned(src.dir, sha, "lfs = true")), t.TempDir(), t.TempDir())
	res := build(t, b)
	if got := readFile(t, filepath.Join(b.Dir, "weights.bin")); got != "large weights\n" {
		t.Errorf("weights.bin = %q, want the LFS object's contents", got)
	}
	if res.Attrs["tree"] != gitIn(t, b.Dir, "rev-parse", "HEAD^{tree}") {
		t.Errorf("tree %s of an LFS checkout is not the commit's tree (of pointers)", res.Attrs["tree"])
	}
	drift, err := testRepo().Verify(context.Background(), &b.Node, recordOf(b.Dir, res))
	if err != nil || drift != "" {
		t.Errorf("Verify of an intact LFS checkout = %q, %v", drift, err)
	}

	without := testBuild(t, decode(t, pinned(src.dir, sha)), t.TempDir(), t.TempDir())
	build(t, without)
	if got := readFile(t, filepath.Join(without.Dir, "weights.bin")); !strings.HasPrefix(got, "version https://git-lfs") {
		t.Errorf("weights.bin without lfs = %q, want the pointer file", got)
	}
}
