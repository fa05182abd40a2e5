package lockfile_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/lockfile"
	"github.com/kilnbuild/kiln/engine/run"
	"github.com/kilnbuild/kiln/providers"
)

const checkPipeline = `
exec "stable" {
  command = "echo same > $KILN_OUT/s"
}

exec "clock" {
  command = "cat ${exec.stable.out}/s > $KILN_OUT/s; date +%s%N > $KILN_OUT/t"
}

exec "train" {
  command       = "date +%s%N > $KILN_OUT/t"
  deterministic = false
}
`

type checkLine struct {
	Addr, Status, Against string
	Files                 []string
}

func check(t *testing.T, dir string, nodes ...string) []checkLine {
	t.Helper()
	var as []addr.Node
	for _, n := range nodes {
		a, _ := addr.Parse(n)
		as = append(as, a)
	}
	res, err := open(t, dir).Check(context.Background(), as, "kiln apply -check")
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	var out []checkLine
	for _, r := range res {
		if r.Status == run.CheckFailed {
			t.Fatalf("rebuild of %s failed: %v\n%s", r.Addr, r.Err, strings.Join(r.LogTail, "\n"))
		}
		out = append(out, checkLine{Addr: r.Addr.String(), Status: string(r.Status), Against: r.Against, Files: r.Files})
	}
	return out
}

// TestCheckCatchesNondeterminism: apply -check rebuilds into a scratch
// folder, names the file of a deterministic node that did not reproduce,
// and reports (without failing) a node marked deterministic = false. It
// changes neither the state, the store nor the lock.
func TestCheckCatchesNondeterminism(t *testing.T) {
	dir := pipelineDir(t, checkPipeline)
	mustApply(t, dir)
	lockBefore := readFile(t, lockfile.Path(dir))
	stateBefore := snapshot(t, filepath.Join(dir, ".kiln", "out"))

	want := []checkLine{
		{Addr: "exec.stable", Status: "reproduced", Against: "kiln.lock.hcl"},
		{Addr: "exec.clock", Status: "MISMATCH", Against: "kiln.lock.hcl", Files: []string{"t"}},
		{Addr: "exec.train", Status: "skipped"},
	}
	if diff := cmp.Diff(want, check(t, dir)); diff != "" {
		t.Errorf("check of every node (-want +got):\n%s", diff)
	}
	want = []checkLine{{Addr: "exec.train", Status: "not deterministic", Against: "kiln.lock.hcl", Files: []string{"t"}}}
	if diff := cmp.Diff(want, check(t, dir, "exec.train")); diff != "" {
		t.Errorf("check of the named nondeterministic node (-want +got):\n%s", diff)
	}

	if got := readFile(t, lockfile.Path(dir)); got != lockBefore {
		t.Errorf("check changed the lock:\n%s", got)
	}
	if diff := cmp.Diff(stateBefore, snapshot(t, filepath.Join(dir, ".kiln", "out"))); diff != "" {
		t.Errorf("check changed the outputs (-before +after):\n%s", diff)
	}
	if _, err := os.Stat(filepath.Join(dir, ".kiln", "check")); !os.IsNotExist(err) {
		t.Errorf("the scratch folder .kiln/check was left behind (%v)", err)
	}
	if got := actions(t, dir); got["exec.clock"] != " " || got["exec.train"] != " " {
		t.Errorf("plan after check = %v, want nothing to do", got)
	}
}

// TestCheckSkipsWhatItCannotRebuild: nodes never built or out of date are
// skipped with the reason; the state's digest is the reference when the
// lock has no entry for the node's key.
func TestCheckSkipsWhatItCannotRebuild(t *testing.T) {
	dir := pipelineDir(t, checkPipeline)
	mustApply(t, dir)
	if err := os.Remove(lockfile.Path(dir)); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "pipeline.hcl"), strings.Replace(checkPipeline, "echo same", "echo changed", 1)+`
exec "later" {
  command = "true"
}
`)
	w, diags, err := engine.Open(engine.Options{Path: dir, Kinds: providers.All()})
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	res, err := w.Check(context.Background(), nil, "kiln apply -check")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range res {
		got[r.Addr.String()] = string(r.Status) + ": " + r.Reason
	}
	want := map[string]string{
		"exec.stable": "skipped: not up to date (the plan says rebuild): run kiln apply first",
		"exec.clock":  "skipped: not up to date (the plan says maybe): run kiln apply first",
		"exec.train":  "skipped: deterministic = false (name it to rebuild it anyway)",
		"exec.later":  "skipped: never built, and kiln.lock.hcl has no entry for it to compare with",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("check of a changed pipeline (-want +got):\n%s", diff)
	}
	writeFile(t, filepath.Join(dir, "pipeline.hcl"), checkPipeline)
	if got := check(t, dir, "exec.stable"); len(got) != 1 || got[0].Against != "state" || got[0].Status != "reproduced" {
		t.Errorf("check without a lock = %+v, want reproduced against the state", got)
	}
}

// snapshot lists the files under dir with their contents.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if fi.Mode().IsRegular() {
			out[p] = readFile(t, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
