package run_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/run"
)

// TestApplyRandomDAG applies 200 nodes in parallel; each node's output is
// its dependencies' outputs followed by its own name, so a node that ran
// before a dependency finished would fail or produce the wrong bytes.
func TestApplyRandomDAG(t *testing.T) {
	const n = 200
	rng := rand.New(rand.NewPCG(7, 11))
	dir := t.TempDir()
	var hcl strings.Builder
	want := make([]string, n)
	for i := range n {
		var deps []int
		if i > 0 {
			for range rng.IntN(4) {
				deps = append(deps, rng.IntN(i))
			}
		}
		sort.Ints(deps)
		deps = compactInts(deps)
		var cmd strings.Builder
		if len(deps) > 0 {
			cmd.WriteString("cat")
			for _, d := range deps {
				fmt.Fprintf(&cmd, " ${exec.n%d.out}/f", d)
				want[i] += want[d]
			}
			cmd.WriteString(" > $KILN_OUT/f; ")
		}
		fmt.Fprintf(&cmd, "echo n%d >> $KILN_OUT/f", i)
		want[i] += "n" + strconv.Itoa(i) + "\n"
		fmt.Fprintf(&hcl, "exec \"n%d\" {\n  command = %q\n}\n\n", i, cmd.String())
	}
	writeFiles(t, dir, map[string]string{"pipeline.hcl": hcl.String()})

	res := apply(t, context.Background(), dir, run.Options{Parallelism: 8})
	if got := res.Count(run.Built); got != n {
		for _, r := range res.Nodes {
			if r.Outcome != run.Built {
				t.Logf("%s: %s %v %q", r.Addr, r.Outcome, r.Err, r.LogTail)
			}
		}
		t.Fatalf("built %d of %d nodes", got, n)
	}
	for i := range n {
		b, err := os.ReadFile(filepath.Join(dir, ".kiln/out", fmt.Sprintf("exec.n%d", i), "f"))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != want[i] {
			t.Fatalf("exec.n%d output (-want +got):\n%s", i, cmp.Diff(want[i], string(b)))
		}
	}

	again := apply(t, context.Background(), dir, run.Options{Parallelism: 8})
	if got := again.Count(run.UpToDate); got != n {
		t.Fatalf("second apply: %d of %d up to date: %v", got, n, outcomes(again))
	}
	for a, act := range open(t, dir).plan(t) {
		if act != plan.NoOp {
			t.Errorf("%s planned %c after two applies", a, act)
		}
	}
}

func compactInts(s []int) []int {
	var out []int
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

func TestApplyKeepGoing(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"pipeline.hcl": `
exec "bad" {
  command = "echo broken; exit 4"
}

exec "after_bad" {
  command = "cat ${exec.bad.out}/x > $KILN_OUT/y"
}

exec "after_after" {
  command = "cat ${exec.after_bad.out}/y > $KILN_OUT/z"
}

exec "sibling" {
  command = "echo ok > $KILN_OUT/ok"
}
`})
	res := apply(t, context.Background(), dir, run.Options{})
	want := map[string]run.Outcome{"exec.bad": run.Failed, "exec.after_bad": run.Skipped, "exec.after_after": run.Skipped, "exec.sibling": run.Built}
	if diff := cmp.Diff(want, outcomes(res)); diff != "" {
		t.Fatalf("outcomes (-want +got):\n%s", diff)
	}
	bad := result(t, res, "exec.bad")
	if !strings.Contains(bad.Err.Error(), "exit status 4") || !cmp.Equal(bad.LogTail, []string{"broken"}) {
		t.Errorf("failure: %v, log tail %q", bad.Err, bad.LogTail)
	}
	if !res.Failed() {
		t.Error("Result.Failed() = false")
	}
	// The next apply runs only what failed or never ran.
	wantPlan := map[string]plan.Action{"exec.bad": plan.Create, "exec.after_bad": plan.Create, "exec.after_after": plan.Create, "exec.sibling": plan.NoOp}
	if diff := cmp.Diff(wantPlan, open(t, dir).plan(t)); diff != "" {
		t.Errorf("plan after the failure (-want +got):\n%s", diff)
	}
}

func TestApplyFailFast(t *testing.T) {
	dir := t.TempDir()
	// bad heads the longest chain, so with one slot it runs first.
	writeFiles(t, dir, map[string]string{"pipeline.hcl": `
exec "bad" {
  command = "exit 1"
}

exec "d1" {
  command = "cat ${exec.bad.out}/x"
}

exec "d2" {
  command = "cat ${exec.d1.out}/x"
}

exec "s1" {
  command = "touch ${path.root}/s1-ran"
}

exec "s2" {
  command = "touch ${path.root}/s2-ran"
}
`})
	res := apply(t, context.Background(), dir, run.Options{Parallelism: 1, FailFast: true})
	want := map[string]run.Outcome{"exec.bad": run.Failed, "exec.d1": run.Skipped, "exec.d2": run.Skipped, "exec.s1": run.Cancelled, "exec.s2": run.Cancelled}
	if diff := cmp.Diff(want, outcomes(res)); diff != "" {
		t.Fatalf("outcomes (-want +got):\n%s", diff)
	}
	for _, f := range []string{"s1-ran", "s2-ran"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s exists: a node ran after the failure with fail-fast", f)
		}
	}
	if err := result(t, res, "exec.s1").Err; err == nil || !strings.Contains(err.Error(), "fail-fast") {
		t.Errorf("cancelled node's error = %v, want one naming fail-fast", err)
	}
}

func TestApplyRetries(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"pipeline.hcl": `
exec "flaky" {
  retries = 2
  command = "echo try >> ${path.root}/attempts; [ $(wc -l < ${path.root}/attempts) -ge 2 ] && echo done > $KILN_OUT/done"
}
`})
	res := apply(t, context.Background(), dir, run.Options{})
	r := result(t, res, "exec.flaky")
	if r.Outcome != run.Built || r.Attempts != 2 {
		t.Fatalf("outcome %s after %d attempts (%v), want built after 2", r.Outcome, r.Attempts, r.Err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "attempts"))
	if err != nil || string(b) != "try\ntry\n" {
		t.Errorf("attempts file = %q, %v; want two tries", b, err)
	}
	log, err := os.ReadFile(r.Log)
	if err != nil || !strings.Contains(string(log), "attempt 2 of 3") {
		t.Errorf("log %q does not mention the second attempt (%v)", log, err)
	}
}

// TestApplyKindPanicIsAFailure: a kind that panics on a configuration (here
// exec on a null env value) fails its node with an error, reported through
// the hooks, rather than leaving it silently cancelled.
func TestApplyKindPanicIsAFailure(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"pipeline.hcl": `
variable "token" {
  type    = string
  default = null
}

exec "a" {
  command = "true"
  env     = { TOKEN = var.token }
}
`})
	hooks := &countingHooks{}
	r := result(t, apply(t, context.Background(), dir, run.Options{Hooks: hooks}), "exec.a")
	if r.Outcome != run.Failed || r.Err == nil || hooks.finished["exec.a"] != 1 {
		t.Fatalf("a panic inside a kind's Build ends the node as %q with error %v and %d Finished calls; want failed, with an error, reported once (the scheduler recovers the panic, but the Applier only fills results from the task itself)", r.Outcome, r.Err, hooks.finished["exec.a"])
	}
}

// TestApplyRetryStartsAfresh: a retry of a node that is not resumable gets
// an empty $KILN_OUT, so what a failed attempt left there does not become
// part of the result.
func TestApplyRetryStartsAfresh(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"pipeline.hcl": `
exec "a" {
  retries = 1
  command = "if [ -f ${path.root}/tried ]; then echo ok > $KILN_OUT/result; else touch ${path.root}/tried; echo junk > $KILN_OUT/partial; exit 1; fi"
}
`})
	r := result(t, apply(t, context.Background(), dir, run.Options{}), "exec.a")
	if r.Outcome != run.Built || r.Attempts != 2 {
		t.Fatalf("outcome %s after %d attempts: %v", r.Outcome, r.Attempts, r.Err)
	}
	entries, err := os.ReadDir(filepath.Join(dir, ".kiln/out/exec.a"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !cmp.Equal([]string{"result"}, names) {
		t.Fatalf("the result of a retried node holds %q; want only [result] (the failed attempt's files stay in $KILN_OUT, so the digest depends on the failure history)", names)
	}
}
