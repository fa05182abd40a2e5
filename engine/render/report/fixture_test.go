package report

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kilnbuild/kiln/engine/history"
	"github.com/kilnbuild/kiln/engine/metrics"
	"github.com/kilnbuild/kiln/engine/plan"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func at(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

func intp(i int) *int { return &i }

// fixtureRun is a run of six nodes: one up to date, one built, a training
// node on 8 NPUs that queued for them and logged metrics, a failed
// evaluation, a node skipped after it, and a restored node whose address
// needs escaping. Its metrics are written under dir.
func fixtureRun(t *testing.T, dir string, id int, scale float64) *history.Run {
	t.Helper()
	r := &history.Run{ID: id, Started: t0, Ended: at(3700), Host: "a2-node-1", PID: 7, Command: "kiln apply", Version: "0.1.0",
		Root: dir, Status: history.Complete, Dir: filepath.Join(dir, ".kiln", "runs", "1"),
		Nodes: []*history.Node{
			{Addr: "git_repo.src", Kind: "git_repo", Executor: "local", Result: history.Result{Action: "no-op", Outcome: "up-to-date", Started: at(0.1), Ended: at(0.2)}},
			{Addr: "exec.prep", Kind: "exec", Deps: []int{0}, Executor: "local", Result: history.Result{Action: "rebuild",
				Reasons: []plan.Reason{{Kind: "input", Subject: "data/train.jsonl", Old: "11832bc4a41e", New: "bad9c5dd2de9"}},
				Outcome: "built", ExitCode: intp(0), Started: at(0.3), Began: at(0.5), Ended: at(3), Attempts: 1, BytesHashed: 3 << 20, Log: ".kiln/logs/exec.prep.log"}},
			{Addr: "exec.train", Kind: "exec", Deps: []int{1}, Resources: map[string]int64{"npu": 8}, Executor: "local", Metrics: true,
				Result: history.Result{Action: "create", Reasons: []plan.Reason{{Kind: "new"}}, Outcome: "built", ExitCode: intp(0),
					Started: at(5), Began: at(5.5), Ended: at(5.5 + 3600*scale), Attempts: 1, BytesHashed: 15 << 30}},
			{Addr: "exec.eval", Kind: "exec", Deps: []int{2}, Executor: "local", Result: history.Result{Action: "create",
				Reasons: []plan.Reason{{Kind: "new"}}, Outcome: "failed", Error: "exit status 3", ExitCode: intp(3),
				Started: at(5.6 + 3600*scale), Began: at(5.7 + 3600*scale), Ended: at(6 + 3600*scale), Attempts: 2}},
			{Addr: "exec.post", Kind: "exec", Deps: []int{3}, Executor: "local", Result: history.Result{Outcome: "skipped",
				Error: "exec.eval did not succeed", Ended: at(6 + 3600*scale)}},
			{Addr: `exec.x["<b>bold</b>"]`, Kind: "exec", Executor: "local", Result: history.Result{Action: "rebuild", Outcome: "restored",
				Reasons: []plan.Reason{{Kind: "restore"}}, Started: at(0.1), Ended: at(0.4)}},
		}}
	writeMetrics(t, r, 2, func(step int) []metrics.Value {
		return []metrics.Value{{Key: "critic/score/mean", Value: scale * float64(step) / 10}, {Key: "actor/entropy", Value: 1.5 - scale*float64(step)/20}}
	}, 10)
	return r
}

// writeMetrics writes steps samples of node i with values(step).
func writeMetrics(t *testing.T, r *history.Run, i int, values func(int) []metrics.Value, steps int) {
	t.Helper()
	path := filepath.Join(r.Dir, "metrics", history.MetricsFile(r.Nodes[i].Addr))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := metrics.NewWriter(f)
	for s := 1; s <= steps; s++ {
		if err := w.Write(&metrics.Sample{Step: int64(s), Values: values(s)}, at(float64(s))); err != nil {
			t.Fatal(err)
		}
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the output; if the change is intended, run go test -update and review the diff:\n%s", path, got)
	}
}
