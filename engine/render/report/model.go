package report

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/kilnbuild/kiln/engine/history"
	"github.com/kilnbuild/kiln/engine/metrics"
	"github.com/kilnbuild/kiln/engine/plan"
)

// Limits of what is drawn (see the package doc).
const (
	maxDrawn       = 400
	maxCurvePoints = 2000
	maxDots        = 400
)

// Options say what to render.
type Options struct {
	Run     *history.Run
	Compare *history.Run // overlaid on the curves and durations; may be nil
	// Now stands for the end of nodes still running.
	Now time.Time
	// LogDir is the folder the output goes to: log links are relative to it.
	// Empty writes the logs' paths relative to the pipeline's folder.
	LogDir string
	// Runs, when set, are listed in a runs table and compared on charts
	// labelled by what differs (sweep.go); Smooth is the weight of the
	// exponential moving average their curves are drawn with (0: none).
	Runs   []SweepRun
	Smooth float64
}

// row is one node as the views show it.
type row struct {
	i        int
	n        *history.Node
	class    string // engine/graph class: create, rebuild, failed, running...
	symbol   string // the plan symbol of the action
	action   string
	outcome  string
	ready    time.Time
	started  time.Time
	began    time.Time     // zero when no command ran
	ended    time.Time     // Now for a running node; zero for a pending one
	queued   time.Duration // waiting for a slot or resources
	pending  time.Duration // in a batch executor's queue: from its turn to its command
	ran      time.Duration
	npuHours float64
	cache    string // "up to date", "restored" or ""
	critical bool
	drawn    bool // on the timeline and the DAG
	log      string
	why      []string
	compare  *history.Node // the same address in the compared run
}

// model is everything the views draw, computed once.
type model struct {
	o        Options
	run      *history.Run
	rows     []*row
	byAddr   map[string]*row
	start    time.Time
	end      time.Time
	critical []int // indices, in order along the path
	hidden   int   // nodes left off the timeline and the DAG
	npuHours float64
	hashed   int64
	counts   map[string]int
	curves   []*nodeCurves
}

func build(o Options) (*model, error) {
	r := o.Run
	m := &model{o: o, run: r, byAddr: map[string]*row{}, start: r.Started, counts: map[string]int{}}
	now := o.Now
	if now.IsZero() {
		now = r.End()
	}
	m.end = r.End()
	if r.Status == history.Running && now.After(m.end) {
		m.end = now
	}
	for i, n := range r.Nodes {
		w := &row{i: i, n: n, outcome: n.Outcome, action: n.Action, started: n.Started, began: n.Began, ended: n.Ended}
		w.ready = r.Ready(i)
		switch {
		case n.Outcome == "" && !n.Began.IsZero() && r.Status == history.Running:
			w.outcome, w.ended = "running", m.end
		case n.Outcome == "" && !n.Began.IsZero():
			w.outcome, w.ended = "interrupted", m.end // kiln stopped while it ran
		case n.Outcome == "" && r.Status == history.Running:
			w.outcome = "pending"
		case n.Outcome == "":
			w.outcome = "not run"
		}
		w.class = class(w.action, w.outcome)
		w.symbol = symbol(w.action)
		if !w.started.IsZero() && w.started.After(w.ready) {
			w.queued = w.started.Sub(w.ready)
		}
		from := w.began
		if from.IsZero() {
			from = w.started
		}
		if !from.IsZero() && w.ended.After(from) {
			w.ran = w.ended.Sub(from)
		}
		if batchExecutor(n.Executor) && !w.started.IsZero() && w.began.After(w.started) {
			w.pending = w.began.Sub(w.started)
		}
		if npu := n.Resources["npu"]; npu > 0 && !w.began.IsZero() {
			w.npuHours = float64(npu*int64(max(n.Machines, 1))) * w.ran.Hours()
		}
		switch w.outcome {
		case "up-to-date":
			w.cache = "up to date"
		case "restored":
			w.cache = "restored"
		}
		for _, rs := range n.Reasons {
			w.why = append(w.why, reasonText(rs))
		}
		if n.Error != "" {
			w.why = append(w.why, n.Error)
		}
		w.log = logLink(r, n, o.LogDir)
		if o.Compare != nil {
			if j := o.Compare.Index(n.Addr); j >= 0 {
				w.compare = o.Compare.Nodes[j]
			}
		}
		m.rows = append(m.rows, w)
		m.byAddr[n.Addr] = w
		m.npuHours += w.npuHours
		m.hashed += n.BytesHashed
		m.counts[w.outcome]++
	}
	m.markCritical()
	m.chooseDrawn()
	var err error
	m.curves, err = loadCurves(o.Run, o.Compare)
	return m, err
}

// batchExecutor reports whether a node's executor queues its runs as
// batch jobs (Slurm): the time from its turn to its command is spent
// submitting it and pending in that queue, not preparing.
func batchExecutor(executor string) bool {
	return executor == "slurm" || strings.HasPrefix(executor, "slurm.")
}

// waited is all the time the node waited before its command: for a slot
// or resources, then in its executor's queue.
func (w *row) waited() time.Duration { return w.queued + w.pending }

// class is the engine/graph class that paints a node.
func class(action, outcome string) string {
	switch outcome {
	case "failed":
		return "failed"
	case "skipped", "cancelled", "not run", "interrupted":
		return "skipped"
	case "running":
		return "running"
	case "pending":
		return "pending"
	case "restored":
		return "restore"
	case "up-to-date":
		return "noop"
	}
	switch action {
	case "no-op", "":
		return "noop"
	}
	return action
}

func symbol(action string) string {
	for _, a := range []plan.Action{plan.Create, plan.Rebuild, plan.Restore, plan.Repair, plan.Start, plan.Maybe, plan.Forget} {
		if a.Word() == action {
			return string(a)
		}
	}
	return ""
}

func reasonText(r plan.Reason) string { return r.String() }

// markCritical walks back from the node that ended last, each time to the
// dependency that ended last. Nodes that never got their turn (skipped,
// cancelled) are not on it.
func (m *model) markCritical() {
	last := -1
	for i, w := range m.rows {
		if w.ended.IsZero() || w.started.IsZero() {
			continue
		}
		if last < 0 || w.ended.After(m.rows[last].ended) {
			last = i
		}
	}
	var path []int
	for i := last; i >= 0; {
		path = append(path, i)
		m.rows[i].critical = true
		next := -1
		for _, d := range m.run.Nodes[i].Deps {
			if dw := m.rows[d]; !dw.ended.IsZero() && !dw.started.IsZero() && (next < 0 || dw.ended.After(m.rows[next].ended)) {
				next = d
			}
		}
		i = next
	}
	for l, r := 0, len(path)-1; l < r; l, r = l+1, r-1 {
		path[l], path[r] = path[r], path[l]
	}
	m.critical = path
}

// chooseDrawn picks the nodes the timeline and the DAG show.
func (m *model) chooseDrawn() {
	all := len(m.rows) <= maxDrawn
	for _, w := range m.rows {
		w.drawn = all || !w.began.IsZero() || w.outcome == "restored" || w.outcome == "failed" || w.outcome == "running"
		if !w.drawn {
			m.hidden++
		}
	}
}

// drawnRows are the rows on the timeline, by the time they got their turn
// (then by dependency order).
func (m *model) timelineRows() []*row {
	var out []*row
	for _, w := range m.rows {
		if w.drawn {
			out = append(out, w)
		}
	}
	sort.SliceStable(out, func(a, b int) bool {
		ta, tb := out[a].sortTime(), out[b].sortTime()
		return ta.Before(tb)
	})
	return out
}

func (w *row) sortTime() time.Time {
	switch {
	case !w.started.IsZero():
		return w.started
	case !w.ended.IsZero():
		return w.ended
	}
	return time.Unix(1<<40, 0) // pending: last
}

// logLink is the path of the node's log in this run, relative to the
// report's folder; empty when there is none (the node printed nothing, or
// its log was removed since).
func logLink(r *history.Run, n *history.Node, dir string) string {
	if n.Log == "" {
		return ""
	}
	abs := n.Log
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(r.Root, abs)
	}
	if _, err := os.Stat(abs); err != nil {
		return ""
	}
	if dir == "" {
		return abs
	}
	if rel, err := relPath(dir, abs); err == nil {
		return rel
	}
	return abs
}

// durationText writes a duration as people read it: 850ms, 12.3s, 4m05s,
// 2h13m, 3d04h.
func durationText(d time.Duration) string {
	switch {
	case d <= 0:
		return "0s"
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd%02dh", int(d.Hours())/24, int(d.Hours())%24)
}

// nodeCurves are the metrics of one node in the run and the compared run.
type nodeCurves struct {
	addr    string
	index   int
	keys    []string
	run     *metrics.Series
	compare *metrics.Series // nil without a compared run
}

// npuText writes NPU-hours with three decimals; empty for none.
func npuText(h float64) string {
	switch {
	case h <= 0:
		return ""
	case h < 0.001:
		return "<0.001"
	}
	return fmt.Sprintf("%.3f", h)
}
