package report

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kilnbuild/kiln/engine/history"
)

// A Slurm job on two machines of 8 NPUs each, that pended 27.1 s in the
// queue: the wait is its own segment and counts as queued, and the hour it
// ran counts 16 NPU-hours.
func TestBatchJobQueueAndNPUHours(t *testing.T) {
	dir := t.TempDir()
	r := &history.Run{ID: 1, Started: t0, Ended: at(3700), Root: dir, Status: history.Complete, Dir: filepath.Join(dir, ".kiln", "runs", "1"),
		Nodes: []*history.Node{{Addr: "exec.train", Kind: "exec", Resources: map[string]int64{"npu": 8}, Executor: "slurm.a2", Machines: 2,
			Result: history.Result{Action: "create", Outcome: "built", Started: at(0.1), Began: at(27.2), Ended: at(27.2 + 3600)}}}}
	m, err := build(Options{Run: r})
	if err != nil {
		t.Fatal(err)
	}
	w := m.rows[0]
	if got := w.pending.Seconds(); math.Abs(got-27.1) > 1e-6 {
		t.Errorf("pending %.3fs, want 27.1s", got)
	}
	if math.Abs(w.npuHours-16) > 1e-9 || math.Abs(m.npuHours-16) > 1e-9 {
		t.Errorf("NPU-hours %v (run %v), want 16: 2 machines × 8 NPUs × 1 h", w.npuHours, m.npuHours)
	}
	var md bytes.Buffer
	if err := Markdown(&md, Options{Run: r}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| 27.2s | 1h00m |") {
		t.Errorf("Markdown does not show the 27.2s wait (0.1s for its turn, 27.1s in the queue) and the hour it ran:\n%s", md.String())
	}
	var page bytes.Buffer
	if err := HTML(&page, Options{Run: r}); err != nil {
		t.Fatal(err)
	}
	if s := page.String(); !strings.Contains(s, "submitted and pending in slurm.a2's queue, 27.1s") || strings.Contains(s, "deciding and preparing") {
		t.Errorf("the timeline does not draw the queue wait as its own segment:\n%s", s)
	}
}
