package history

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/metrics"
	"github.com/kilnbuild/kiln/engine/nolink"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/pool"
	"github.com/kilnbuild/kiln/engine/run"
)

// DefaultKeep is how many runs are kept when the apply does not say.
const DefaultKeep = 20

// Options begin a run.
type Options struct {
	StateDir string
	Keep     int // runs kept, this one included; 0 means DefaultKeep
	// Run is the header and the nodes; Begin sets ID and Started.
	Run Run
	// Specs are the metrics to read from each node's log, by node index.
	Specs map[int]*metrics.Spec
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Recorder writes one run's journal and metrics. It is the run.Hooks of an
// apply; its methods are safe for concurrent use.
type Recorder struct {
	dir   string
	root  string
	now   func() time.Time
	index map[addr.Node]int // read-only after Begin
	nodes []*nodeMetrics    // by index; nil for nodes without metrics

	mu      sync.Mutex
	journal *os.File
	err     error // the first write error: recording stops, the apply goes on
	closed  bool
}

// nodeMetrics is the metric state of one node. Each sample is one write
// to its file, so a report reads the samples of a running node at once; a
// trainer logs a line per step, so this costs nothing measurable.
type nodeMetrics struct {
	mu     sync.Mutex
	path   string
	parser *metrics.Parser
	file   *os.File
	out    *metrics.Writer
	err    error
	now    func() time.Time
}

// Begin starts recording a run: it removes the oldest runs beyond o.Keep,
// takes the next ID and writes the begin entry.
func Begin(o Options) (*Recorder, error) {
	now := o.Now
	if now == nil {
		now = time.Now
	}
	keep := o.Keep
	if keep <= 0 {
		keep = DefaultKeep
	}
	runs := filepath.Join(o.StateDir, "runs")
	if err := os.MkdirAll(runs, 0o755); err != nil {
		return nil, fmt.Errorf("recording the run: %w", err)
	}
	ids, err := List(o.StateDir)
	if err != nil {
		return nil, err
	}
	for len(ids) >= keep {
		if err := os.RemoveAll(filepath.Join(runs, strconv.Itoa(ids[0]))); err != nil {
			return nil, fmt.Errorf("removing an old run record: %w", err)
		}
		ids = ids[1:]
	}
	id := 1
	if len(ids) > 0 {
		id = ids[len(ids)-1] + 1
	}
	dir := filepath.Join(runs, strconv.Itoa(id))
	for {
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			break
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("recording the run: %w", err)
		}
		id++
		dir = filepath.Join(runs, strconv.Itoa(id))
	}
	f, err := os.OpenFile(filepath.Join(dir, journalName), os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("recording the run: %w", err)
	}
	hdr := o.Run
	hdr.ID, hdr.Started = id, now().UTC()
	r := &Recorder{dir: dir, root: hdr.Root, now: now, index: map[addr.Node]int{}, nodes: make([]*nodeMetrics, len(hdr.Nodes)), journal: f}
	for i, n := range hdr.Nodes {
		if a, err := addr.Parse(n.Addr); err == nil {
			r.index[a] = i
		}
		if spec := o.Specs[i]; spec != nil {
			n.Metrics = true
			r.nodes[i] = r.newNodeMetrics(n.Addr, spec)
		}
	}
	if err := r.write(entry{Op: opBegin, Run: &hdr}); err != nil {
		f.Close()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("recording the run: %w", err)
	}
	return r, nil
}

// ID is the run's ID.
func (r *Recorder) ID() int {
	id, _ := strconv.Atoi(filepath.Base(r.dir))
	return id
}

// Err returns the first error writing the record, if any.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// write appends one entry to the journal.
func (r *Recorder) write(e entry) error {
	line, err := encodeEntry(e)
	if err != nil {
		return err
	}
	_, err = r.journal.Write(line)
	return err
}

// record appends an entry, keeping the first error.
func (r *Recorder) record(e entry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil || r.closed {
		return
	}
	if err := r.write(e); err != nil {
		r.err = fmt.Errorf("recording the run in %s: %w", r.dir, err)
	}
}

// Running records that a node's command started.
func (r *Recorder) Running(a addr.Node, action plan.Action, reasons []plan.Reason) {
	i, ok := r.index[a]
	if !ok {
		return
	}
	r.record(entry{Op: opRunning, Node: &i, At: r.now().UTC(), Result: &Result{Action: action.Word(), Reasons: reasons}})
}

// Output reads metrics from a line of a running node's log.
func (r *Recorder) Output(a addr.Node, line string) {
	i, ok := r.index[a]
	if !ok || r.nodes[i] == nil {
		return
	}
	r.nodes[i].line(line)
}

// Finished records how a node ended.
func (r *Recorder) Finished(res run.NodeResult) {
	i, ok := r.index[res.Addr]
	if !ok {
		return
	}
	if m := r.nodes[i]; m != nil {
		if err := m.close(); err != nil {
			r.mu.Lock()
			if r.err == nil {
				r.err = err
			}
			r.mu.Unlock()
		}
	}
	out := r.result(res)
	if r.nodes[i] != nil && len(res.Segments) > 0 {
		out.Segments = segmentsOf(res.Segments)
	}
	r.record(entry{Op: opFinished, Node: &i, Result: out})
}

// result is the record of a node's result.
func (r *Recorder) result(res run.NodeResult) *Result {
	out := &Result{
		Reasons: res.Reasons, Outcome: string(res.Outcome),
		Started: utc(res.Started), Began: utc(res.Began), Ended: utc(res.Ended),
		Attempts: res.Attempts, BytesHashed: res.BytesHashed,
		Devices: pool.HeldList(res.Devices),
	}
	if res.Action != 0 {
		out.Action = res.Action.Word()
	}
	if res.Err != nil {
		out.Error = res.Err.Error()
	}
	if !res.Began.IsZero() {
		code := 0
		var ee interface{ ExitCode() int }
		switch {
		case errors.As(res.Err, &ee):
			code = ee.ExitCode()
		case res.Err != nil:
			code = -1
		}
		if code >= 0 {
			out.ExitCode = &code
		}
	}
	if res.Log != "" {
		out.Log = res.Log
		if rel, err := filepath.Rel(r.root, res.Log); err == nil && filepath.IsLocal(rel) {
			out.Log = rel
		}
	}
	return out
}

func utc(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.UTC()
}

// Close records the end of the run — interrupted, when the apply was —,
// makes the journal durable and closes it, and the metric files of nodes
// still open.
func (r *Recorder) Close(interrupted bool) error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return r.err
	}
	r.mu.Unlock()
	for _, m := range r.nodes {
		if m != nil {
			if err := m.close(); err != nil {
				r.mu.Lock()
				if r.err == nil {
					r.err = err
				}
				r.mu.Unlock()
			}
		}
	}
	r.record(entry{Op: opEnd, At: r.now().UTC(), Interrupted: interrupted})
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	if err := r.journal.Sync(); err != nil && r.err == nil {
		r.err = err
	}
	if err := r.journal.Close(); err != nil && r.err == nil {
		r.err = err
	}
	return r.err
}

func (r *Recorder) newNodeMetrics(a string, spec *metrics.Spec) *nodeMetrics {
	m := &nodeMetrics{path: filepath.Join(r.dir, "metrics", MetricsFile(a)), now: r.now}
	m.parser = metrics.NewParser(spec, m.sample)
	return m
}

// MetricsFile is the name of a node's metrics file in a run's metrics folder.
func MetricsFile(a string) string {
	if n, err := addr.Parse(a); err == nil {
		return n.FileName() + ".jsonl"
	}
	return strconv.Quote(a) + ".jsonl"
}

func (m *nodeMetrics) line(s string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil || m.parser == nil {
		return
	}
	m.parser.Line([]byte(s))
}

// sample writes one parsed sample; called by the parser under m.mu.
func (m *nodeMetrics) sample(s *metrics.Sample) {
	if m.out == nil {
		if err := os.MkdirAll(filepath.Dir(m.path), 0o755); err != nil {
			m.err = err
			return
		}
		f, err := nolink.OpenFile(m.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			m.err = err
			return
		}
		m.file = f
		m.out = metrics.NewWriter(f)
	}
	if err := m.out.Write(s, m.now()); err != nil {
		m.err = err
	}
}

// close closes the node's metrics file; later lines are not read (a node
// finishes once per run).
func (m *nodeMetrics) close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.parser = nil
	if m.file == nil {
		return m.err
	}
	if err := m.file.Close(); err != nil && m.err == nil {
		m.err = err
	}
	m.file, m.out = nil, nil
	if m.err != nil {
		return fmt.Errorf("recording the metrics in %s: %w", m.path, m.err)
	}
	return nil
}
