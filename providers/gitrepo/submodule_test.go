package gitrepo

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSubmodules(t *testing.T) {
	t.Parallel()
	lib := newSource(t)
	libFirst := lib.commit("lib one", map[string]string{"lib.txt": "lib one\n"})
	lib.commit("lib two", map[string]string{"lib.txt": "lib two\n"})

	app := newSource(t)
	app.commit("app", map[string]string{"app.txt": "app\n"})
	gitIn(t, app.dir, "submodule", "add", "--quiet", lib.dir, "third_party/lib")
	gitIn(t, filepath.Join(app.dir, "third_party/lib"), "checkout", "--quiet", libFirst) // pin a commit that is not the tip
	gitIn(t, app.dir, "add", "-A")
	gitIn(t, app.dir, "commit", "--quiet", "-m", "add lib")
	sha := gitIn(t, app.dir, "rev-parse", "HEAD")

	b := testBuild(t, decode(t, pinned(app.dir, sha, "submodules = true")), t.TempDir(), t.TempDir(), fileAllowed...)
	res := build(t, b)
	if got := readFile(t, filepath.Join(b.Dir, "third_party/lib/lib.txt")); got != "lib one\n" {
		t.Errorf("submodule file = %q, want the pinned commit's", got)
	}
	if got := gitIn(t, filepath.Join(b.Dir, "third_party/lib"), "rev-parse", "HEAD"); got != libFirst {
		t.Errorf("submodule HEAD = %s, want %s", got, libFirst)
	}
	if res.Attrs["tree"] != gitIn(t, b.Dir, "rev-parse", "HEAD^{tree}") {
		t.Errorf("tree %s of a checkout with its submodules is not the commit's tree", res.Attrs["tree"])
	}
	drift, err := testRepo().Verify(context.Background(), &b.Node, recordOf(b.Dir, res))
	if err != nil || drift != "" {
		t.Errorf("Verify of an intact checkout with submodules = %q, %v", drift, err)
	}

	without := testBuild(t, decode(t, pinned(app.dir, sha)), t.TempDir(), t.TempDir(), fileAllowed...)
	build(t, without)
	if entries, _ := os.ReadDir(filepath.Join(without.Dir, "third_party/lib")); len(entries) != 0 {
		t.Errorf("submodule checked out without submodules = true: %v", entries)
	}

	// Without permission for file:// submodules, git refuses, and the error
	// says which step failed.
	denied := testBuild(t, decode(t, pinned(app.dir, sha, "submodules = true")), t.TempDir(), t.TempDir())
	_, err = testRepo().Build(context.Background(), denied)
	if err == nil || !strings.Contains(err.Error(), "submodules of "+app.dir) {
		t.Errorf("error = %v, want one naming the submodules step", err)
	}
}
