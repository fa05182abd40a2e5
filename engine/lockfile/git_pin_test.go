package lockfile_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/lockfile"
)

func gitPipeline(src string) string {
	return `
git_repo "x" {
  url = "` + src + `"
  ref = "main"
}

exec "use" {
  command = "cat ${git_repo.x.out}/f > $KILN_OUT/f"
}
`
}

// TestGitRefPinHolds: apply pins the commit the ref named; a branch that
// moves changes nothing until kiln lock -update re-resolves it, and then the
// checkout and its dependents rebuild with the new commit.
func TestGitRefPinHolds(t *testing.T) {
	src := newGitRepo(t)
	first := src.commit("one")
	dir := pipelineDir(t, gitPipeline(src.dir))

	mustApply(t, dir)
	want := map[string]string{"commit": first, "ref": "main", "url": src.dir}
	if diff := cmp.Diff(want, lock(t, dir).Pins["git_repo.x"]); diff != "" {
		t.Fatalf("pin after the first apply (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"git_repo.x": " ", "exec.use": " "}, actions(t, dir)); diff != "" {
		t.Fatalf("plan right after apply (-want +got):\n%s", diff)
	}

	second := src.commit("two")
	if diff := cmp.Diff(map[string]string{"git_repo.x": " ", "exec.use": " "}, actions(t, dir)); diff != "" {
		t.Fatalf("plan after the branch moved: the pin must hold (-want +got):\n%s", diff)
	}
	mustApply(t, dir)
	if got := readFile(t, filepath.Join(dir, ".kiln/out/exec.use/f")); got != "one" {
		t.Fatalf("after the branch moved, exec.use saw %q, want the pinned %q", got, "one")
	}

	res := lockPins(t, dir, "git_repo.x")
	if len(res) != 1 || res[0].Status != lockfile.Pinned || res[0].Pins["commit"] != second || res[0].Old["commit"] != first {
		t.Fatalf("kiln lock -update git_repo.x = %+v, want pinned %s (was %s)", res, second, first)
	}
	if got := actions(t, dir); got["git_repo.x"] != "~" || got["exec.use"] != "?" {
		t.Fatalf("plan after kiln lock -update = %v, want git_repo.x rebuilt and exec.use maybe", got)
	}
	mustApply(t, dir)
	if got := readFile(t, filepath.Join(dir, ".kiln/out/exec.use/f")); got != "two" {
		t.Fatalf("after the update, exec.use saw %q, want %q", got, "two")
	}
	lf := lock(t, dir)
	if lf.Pins["git_repo.x"]["commit"] != second {
		t.Errorf("lock pin after apply = %v, want commit %s", lf.Pins["git_repo.x"], second)
	}
	for _, a := range []string{"git_repo.x", "exec.use"} {
		if n := lf.Nodes[a]; n.Key == "" || n.Digest == "" || n.Kiln == "" {
			t.Errorf("lock node %s = %+v, want key, digest and kiln version", a, n)
		}
	}
	if got := readFile(t, lockfile.Path(dir)); got != string(lf.Bytes()) {
		t.Errorf("the lock apply wrote does not round-trip:\n%s", got)
	}
}

// TestLockResolvesWithoutBuilding: kiln lock pins a ref with git ls-remote;
// the first apply then checks out that commit even if the branch moved.
func TestLockResolvesWithoutBuilding(t *testing.T) {
	src := newGitRepo(t)
	first := src.commit("one")
	dir := pipelineDir(t, gitPipeline(src.dir))

	res := lockPins(t, dir)
	if len(res) != 1 || res[0].Status != lockfile.Pinned || res[0].Pins["commit"] != first {
		t.Fatalf("kiln lock = %+v, want git_repo.x pinned at %s", res, first)
	}
	if len(lock(t, dir).Nodes) != 0 {
		t.Errorf("kiln lock wrote node entries without building")
	}
	src.commit("two")
	if res := lockPins(t, dir); len(res) != 1 || res[0].Status != lockfile.Kept {
		t.Fatalf("second kiln lock = %+v, want the pin kept", res)
	}
	mustApply(t, dir)
	if got := readFile(t, filepath.Join(dir, ".kiln/out/exec.use/f")); got != "one" {
		t.Fatalf("apply checked out %q, want the locked %q", got, "one")
	}
	if got := actions(t, dir); got["git_repo.x"] != " " {
		t.Errorf("plan after apply = %v, want nothing to do", got)
	}
}

// TestEditedRefIgnoresPin: a pin resolved from another ref no longer fits
// the configuration and is resolved anew, as the configuration now asks.
func TestEditedRefIgnoresPin(t *testing.T) {
	src := newGitRepo(t)
	src.commit("one")
	dir := pipelineDir(t, gitPipeline(src.dir))
	mustApply(t, dir)
	src.git("checkout", "--quiet", "-b", "dev")
	dev := src.commit("dev")
	writeFile(t, filepath.Join(dir, "pipeline.hcl"), strings.Replace(gitPipeline(src.dir), `"main"`, `"dev"`, 1))
	mustApply(t, dir)
	if got := readFile(t, filepath.Join(dir, ".kiln/out/exec.use/f")); got != "dev" {
		t.Fatalf("after switching the ref, exec.use saw %q, want %q", got, "dev")
	}
	if got := lock(t, dir).Pins["git_repo.x"]; got["commit"] != dev || got["ref"] != "dev" {
		t.Errorf("pin after switching the ref = %v, want commit %s of ref dev", got, dev)
	}
}
