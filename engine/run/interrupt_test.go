package run_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/run"
	"github.com/kilnbuild/kiln/engine/state"
)

// readPID reads a pid a command wrote, waiting until it is there.
func readPID(t *testing.T, path string) int {
	t.Helper()
	var pid int
	waitFor(t, path, func() bool {
		b, err := os.ReadFile(path)
		if err != nil || !bytes.HasSuffix(b, []byte("\n")) {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil
	})
	return pid
}

// processGone reports whether pid has exited (a zombie waiting for its
// reaper counts as exited).
func processGone(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return false
	}
	f := strings.Fields(string(b[i+1:]))
	return len(f) > 0 && (f[0] == "Z" || f[0] == "X")
}

func TestApplyTimeout(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"pipeline.hcl": `
exec "slow" {
  timeout = "300ms"
  command = "sleep 30 & echo $! > ${path.root}/bg.pid; sleep 5; touch ${path.root}/finished"
}
`})
	start := time.Now()
	res := apply(t, context.Background(), dir, run.Options{})
	took := time.Since(start)
	r := result(t, res, "exec.slow")
	if r.Outcome != run.Failed || r.Err == nil || !strings.Contains(r.Err.Error(), "timed out") {
		t.Fatalf("outcome %s, error %v; want failed, timed out", r.Outcome, r.Err)
	}
	if took >= 5*time.Second {
		t.Errorf("apply took %s: it waited for the command instead of stopping it", took)
	}
	if _, err := os.Stat(filepath.Join(dir, "finished")); err == nil {
		t.Error("the command ran to its end")
	}
	bg := readPID(t, filepath.Join(dir, "bg.pid"))
	waitFor(t, fmt.Sprintf("background process %d to be killed", bg), func() bool { return processGone(bg) })
}

func TestApplyCancel(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"pipeline.hcl": `
exec "slow" {
  command = "echo partial > $KILN_OUT/partial; sleep 30 & echo $! > ${path.root}/bg.pid; wait"
}

exec "after" {
  command = "cat ${exec.slow.out}/partial > $KILN_OUT/x"
}
`})
	hooks := &countingHooks{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	applyFn := prepareApply(t, dir, run.Options{Hooks: hooks})
	type done struct {
		res *run.Result
		err error
	}
	ch := make(chan done, 1)
	go func() {
		res, err := applyFn(ctx)
		ch <- done{res, err}
	}()
	bg := readPID(t, filepath.Join(dir, "bg.pid"))
	cancel()
	var d done
	select {
	case d = <-ch:
	case <-time.After(20 * time.Second):
		t.Fatal("apply did not return after cancellation")
	}
	if d.err != nil {
		t.Fatalf("apply: %v", d.err)
	}
	if got := result(t, d.res, "exec.slow").Outcome; got != run.Cancelled {
		t.Errorf("exec.slow: %s, want cancelled", got)
	}
	if got := result(t, d.res, "exec.after").Outcome; got != run.Cancelled && got != run.Skipped {
		t.Errorf("exec.after: %s, want cancelled or skipped", got)
	}
	waitFor(t, "the background sleep to be killed", func() bool { return processGone(bg) })

	// The state loads and plans; nothing of the interrupted run counts as
	// a result.
	o := open(t, dir)
	want := map[string]plan.Action{"exec.slow": plan.Create, "exec.after": plan.Create}
	if diff := cmp.Diff(want, o.plan(t)); diff != "" {
		t.Errorf("plan after cancellation (-want +got):\n%s", diff)
	}
	store := state.OpenStore(o.pipeline.StateDir)
	runs, err := store.Runs()
	if err != nil || len(runs) != 0 {
		t.Errorf("run folders after cancellation: %v, %v; the interrupted run's folder is removed", runs, err)
	}
	if _, err := os.Lstat(filepath.Join(dir, ".kiln/out/exec.slow")); err == nil {
		t.Error("the interrupted node has a stable path")
	}

	if diff := cmp.Diff(map[string]int{"exec.slow": 1, "exec.after": 1}, hooks.finished); diff != "" {
		t.Errorf("Hooks.Finished calls per node (-want +got):\n%s", diff)
	}
}

// TestApplyFailureKeepsGoodResult: a rebuild that fails leaves the stable
// path on the last good result.
func TestApplyFailureKeepsGoodResult(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"pipeline.hcl": `
exec "a" {
  command = "echo good > $KILN_OUT/v"
}
`})
	apply(t, context.Background(), dir, run.Options{})
	writeFiles(t, dir, map[string]string{"pipeline.hcl": `
exec "a" {
  command = "echo bad > $KILN_OUT/v; exit 1"
}
`})
	if got := result(t, apply(t, context.Background(), dir, run.Options{}), "exec.a").Outcome; got != run.Failed {
		t.Fatalf("outcome %s, want failed", got)
	}
	b, err := os.ReadFile(filepath.Join(dir, ".kiln/out/exec.a/v"))
	if err != nil || string(b) != "good\n" {
		t.Errorf("stable output = %q, %v; want the good result", b, err)
	}
	if got := open(t, dir).plan(t)["exec.a"]; got != plan.Rebuild {
		t.Errorf("planned %c, want rebuild", got)
	}
}
