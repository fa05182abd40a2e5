package history

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/metrics"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/run"
	"github.com/kilnbuild/kiln/engine/state"
)

// clock is a fake time source that advances one second per reading.
type clock struct{ t time.Time }

func (c *clock) now() time.Time {
	c.t = c.t.Add(time.Second)
	return c.t
}

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func header(root string) Run {
	return Run{Host: "h1", PID: 4242, Command: "kiln apply", Version: "0.1.0", Root: root, Parallelism: 2,
		Capacity: map[string]int64{"npu": 8},
		Nodes: []*Node{
			{Addr: "exec.prep", Kind: "exec", Executor: "local"},
			{Addr: "exec.train", Kind: "exec", Deps: []int{0}, Resources: map[string]int64{"npu": 8}, Executor: "local"},
			{Addr: "exec.eval", Kind: "exec", Deps: []int{1}, Executor: "local"},
		}}
}

func mustAddr(t *testing.T, s string) addr.Node {
	t.Helper()
	a, err := addr.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

type exitErr struct{ code int }

func (e exitErr) Error() string { return "exit status " + strconv.Itoa(e.code) }
func (e exitErr) ExitCode() int { return e.code }

// TestRecordAndLoad records a run as an apply's hooks see it and reads it
// back: every node's action, reasons, times, outcome, exit status and log,
// and the metric samples of the node that declares them.
func TestRecordAndLoad(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Dir(dir)
	c := &clock{t: t0}
	spec, err := metrics.NewSpec("verl", nil, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := Begin(Options{StateDir: dir, Run: header(root), Specs: map[int]*metrics.Spec{1: spec}, Now: c.now})
	if err != nil {
		t.Fatal(err)
	}
	if rec.ID() != 1 {
		t.Errorf("first run has ID %d", rec.ID())
	}
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	rec.Finished(run.NodeResult{Addr: mustAddr(t, "exec.prep"), Action: plan.NoOp, Outcome: run.UpToDate, Started: at(1), Ended: at(1)})
	reasons := []plan.Reason{{Kind: "input", Subject: "data/train.jsonl", Old: "aaa", New: "bbb"}}
	train := mustAddr(t, "exec.train")
	rec.Running(train, plan.Rebuild, reasons) // at(2)
	rec.Output(train, "(TaskRunner pid=1) step:1 - critic/score/mean:np.float64(-0.5)")
	rec.Output(exec(t, "exec.prep"), "step:9 - not:1") // no metrics declared: ignored
	rec.Output(train, "step:2 - critic/score/mean:np.float64(0.25) - actor/entropy:1.5")
	rec.Finished(run.NodeResult{Addr: train, Action: plan.Rebuild, Reasons: reasons, Outcome: run.Built, Attempts: 1,
		Started: at(2), Began: at(3), Ended: at(10), BytesHashed: 1 << 20, Log: filepath.Join(dir, "logs", "exec.train.log")})
	rec.Running(mustAddr(t, "exec.eval"), plan.Create, nil)
	rec.Finished(run.NodeResult{Addr: mustAddr(t, "exec.eval"), Action: plan.Create, Outcome: run.Failed, Err: exitErr{3}, Attempts: 2,
		Started: at(11), Began: at(11), Ended: at(12)})
	if err := rec.Close(false); err != nil {
		t.Fatal(err)
	}

	r, err := Load(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	three := 3
	zero := 0
	want := header(root)
	want.ID, want.Started, want.Ended, want.Status, want.Dir = 1, at(1), at(6), Complete, filepath.Join(dir, "runs", "1")
	want.Nodes[1].Metrics = true
	want.Nodes[0].Result = Result{Action: "no-op", Outcome: "up-to-date", Started: at(1), Ended: at(1)}
	want.Nodes[1].Result = Result{Action: "rebuild", Reasons: reasons, Outcome: "built", ExitCode: &zero, Started: at(2), Began: at(3), Ended: at(10),
		Attempts: 1, BytesHashed: 1 << 20, Log: filepath.Join(filepath.Base(dir), "logs", "exec.train.log")}
	want.Nodes[2].Result = Result{Action: "create", Outcome: "failed", Error: "exit status 3", ExitCode: &three, Started: at(11), Began: at(11), Ended: at(12), Attempts: 2}
	if diff := cmp.Diff(&want, r); diff != "" {
		t.Errorf("loaded run (-want +got):\n%s", diff)
	}
	s, err := r.Metrics(1)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]float64{}
	for k, pts := range s.Points {
		for _, p := range pts {
			got[k] = append(got[k], float64(p.Step), p.Value)
		}
	}
	if diff := cmp.Diff(map[string][]float64{"critic/score/mean": {1, -0.5, 2, 0.25}, "actor/entropy": {2, 1.5}}, got); diff != "" {
		t.Errorf("metrics (-want +got):\n%s", diff)
	}
	if s, _ := r.Metrics(0); len(s.Points) != 0 {
		t.Errorf("exec.prep has metrics %v", s.Points)
	}
}

func exec(t *testing.T, s string) addr.Node { return mustAddr(t, s) }

// TestKeepsTheLastRuns: with Keep = 3, the fourth and fifth runs remove the
// oldest, and IDs keep counting up.
func TestKeepsTheLastRuns(t *testing.T) {
	dir := t.TempDir()
	for range 5 {
		rec, err := Begin(Options{StateDir: dir, Keep: 3, Run: header(dir)})
		if err != nil {
			t.Fatal(err)
		}
		if err := rec.Close(false); err != nil {
			t.Fatal(err)
		}
	}
	ids, err := List(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{3, 4, 5}, ids); diff != "" {
		t.Errorf("kept runs (-want +got):\n%s", diff)
	}
	if _, err := Load(dir, 1); err == nil || err.Error() != "no run 1: the recorded runs are 3-5" {
		t.Errorf("Load of a removed run: %v", err)
	}
	if prev, _ := Previous(dir, 5); prev != 4 {
		t.Errorf("Previous(5) = %d", prev)
	}
}

// TestRunningAndInterrupted: a run without its end entry is running while
// the process that began it holds the apply lock, interrupted after.
func TestRunningAndInterrupted(t *testing.T) {
	dir := t.TempDir()
	host, _ := os.Hostname()
	lock, err := state.AcquireLock(dir, state.Holder{PID: os.Getpid(), Host: host, Started: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	hdr := header(dir)
	hdr.PID, hdr.Host = os.Getpid(), host
	spec, _ := metrics.NewSpec("verl", nil, "", nil)
	rec, err := Begin(Options{StateDir: dir, Run: hdr, Specs: map[int]*metrics.Spec{1: spec}})
	if err != nil {
		t.Fatal(err)
	}
	train := mustAddr(t, "exec.train")
	rec.Running(train, plan.Create, nil)
	for i := 1; i <= 3; i++ {
		rec.Output(train, "step:"+strconv.Itoa(i)+" - loss:0.5")
	}
	// The metrics are in the file while the node runs.
	r, err := Load(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != Running || r.Nodes[1].Began.IsZero() || r.Nodes[1].Outcome != "" {
		t.Errorf("a running run reads as %s, node %+v", r.Status, r.Nodes[1].Result)
	}
	s, err := r.Metrics(1)
	if err != nil {
		t.Fatal(err)
	}
	if s.Steps() != 3 {
		t.Errorf("the metrics file of a running node shows %d steps, want 3", s.Steps())
	}
	// kiln dies: no end entry, and the lock is released by the kernel (here,
	// by Release, which also clears the holder).
	lock.Release()
	r, err = Load(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != Interrupted {
		t.Errorf("status %s after the apply's process let go of the lock, want interrupted", r.Status)
	}
	rec.Close(false)
}

// TestTornAndDamagedJournal: a torn last line is ignored; a damaged line
// before the last is an error naming the file and line.
func TestTornAndDamagedJournal(t *testing.T) {
	dir := t.TempDir()
	rec, err := Begin(Options{StateDir: dir, Run: header(dir)})
	if err != nil {
		t.Fatal(err)
	}
	rec.Running(mustAddr(t, "exec.prep"), plan.Create, nil)
	rec.Close(false)
	path := filepath.Join(dir, "runs", "1", journalName)
	data, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(data), "\n")
	if len(lines) != 4 || lines[3] != "" {
		t.Fatalf("journal has lines %q, want begin, running, end", lines)
	}
	torn := lines[0] + lines[1] + lines[2][:len(lines[2])/2]
	os.WriteFile(path, []byte(torn), 0o644)
	r, err := Load(dir, 1)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != Interrupted || r.Nodes[0].Began.IsZero() {
		t.Errorf("torn end: status %s, prep began %v", r.Status, r.Nodes[0].Began)
	}
	damaged := lines[0] + strings.Replace(lines[1], "running", "runnin_", 1) + lines[2]
	os.WriteFile(path, []byte(damaged), 0o644)
	if _, err := Load(dir, 1); err == nil || !strings.Contains(err.Error(), path+": line 2 is damaged (checksum mismatch)") {
		t.Errorf("damaged line 2: %v", err)
	}
	os.RemoveAll(filepath.Join(dir, "runs"))
	if _, err := Load(dir, 0); !errors.Is(err, ErrNoRuns) {
		t.Errorf("no runs: %v", err)
	}
}

// TestInstanceAddresses: the metrics of for_each and count instances reach
// their own files.
func TestInstanceAddresses(t *testing.T) {
	dir := t.TempDir()
	spec, _ := metrics.NewSpec("verl", nil, "", nil)
	hdr := Run{Root: dir, Nodes: []*Node{{Addr: `exec.sweep["lr-3"]`, Kind: "exec"}, {Addr: "exec.shard[2]", Kind: "exec"}}}
	rec, err := Begin(Options{StateDir: dir, Run: hdr, Specs: map[int]*metrics.Spec{0: spec, 1: spec}})
	if err != nil {
		t.Fatal(err)
	}
	sweep := addr.Node{Kind: "exec", Name: "sweep", Key: addr.StringKey("lr-3")}
	shard := addr.Node{Kind: "exec", Name: "shard", Key: addr.IntKey(2)}
	rec.Output(sweep, "step:1 - loss:0.5")
	rec.Output(shard, "step:7 - loss:0.25")
	rec.Finished(run.NodeResult{Addr: sweep, Outcome: run.Built})
	rec.Finished(run.NodeResult{Addr: shard, Outcome: run.Built})
	if err := rec.Close(false); err != nil {
		t.Fatal(err)
	}
	r, err := Load(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int64{1, 7} {
		s, err := r.Metrics(i)
		if err != nil {
			t.Fatal(err)
		}
		if pts := s.Points["loss"]; len(pts) != 1 || pts[0].Step != want || r.Nodes[i].Outcome != "built" {
			t.Errorf("%s: points %v, outcome %q", r.Nodes[i].Addr, pts, r.Nodes[i].Outcome)
		}
	}
}

// TestInterruptedApply: an apply stopped by a signal records its end as
// interrupted.
func TestInterruptedApply(t *testing.T) {
	dir := t.TempDir()
	rec, err := Begin(Options{StateDir: dir, Run: header(dir)})
	if err != nil {
		t.Fatal(err)
	}
	rec.Finished(run.NodeResult{Addr: mustAddr(t, "exec.prep"), Outcome: run.Cancelled, Err: errors.New("interrupted")})
	if err := rec.Close(true); err != nil {
		t.Fatal(err)
	}
	r, err := Load(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != Interrupted || r.Ended.IsZero() || r.Nodes[0].Outcome != "cancelled" {
		t.Errorf("status %s, ended %v, exec.prep %q", r.Status, r.Ended, r.Nodes[0].Outcome)
	}
}
