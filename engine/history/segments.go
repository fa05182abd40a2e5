package history

import (
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/kilnbuild/kiln/engine/metrics"
	"github.com/kilnbuild/kiln/engine/state"
)

// Segment is one stretch of work on a node's result (state.Segment) as a
// run records it: a resumed result has one per run that worked in its
// folder, a restored or up-to-date one those that built it.
type Segment struct {
	Started  time.Time     `json:"started"`
	Duration time.Duration `json:"duration_ns"`
	Log      string        `json:"log,omitempty"` // relative to Run.Root
}

func segmentsOf(segs []state.Segment) []Segment {
	out := make([]Segment, len(segs))
	for i, s := range segs {
		out[i] = Segment{Started: s.Started.UTC(), Duration: s.Duration, Log: s.Log}
	}
	return out
}

// Segments finds, among the recorded runs of a state folder, the metrics
// each log's run wrote; it loads each run once, when first asked.
type Segments struct {
	dir    string
	loaded bool
	byLog  map[string]logged   // node address and log
	cut    map[string][]logged // by address: runs that died with the node running
}

type logged struct {
	run   *Run
	index int
}

// cutAt finds the run of a, cut short when its apply was killed, whose
// command began during seg (the segment starts as the log is opened, just
// before the command).
func (s *Segments) cutAt(a string, seg Segment) (logged, bool) {
	for _, l := range s.cut[a] {
		b := l.run.Nodes[l.index].Began
		if !b.Before(seg.Started) && !b.After(seg.Started.Add(seg.Duration+time.Second)) {
			return l, true
		}
	}
	return logged{}, false
}

// NewSegments reads the runs of the state folder dir when first asked.
func NewSegments(dir string) *Segments { return &Segments{dir: dir} }

func (s *Segments) load() {
	if s.loaded {
		return
	}
	s.loaded, s.byLog, s.cut = true, map[string]logged{}, map[string][]logged{}
	ids, _ := List(s.dir)
	for _, id := range ids {
		r, err := Load(s.dir, id)
		if err != nil {
			continue // an unreadable run has no curves to give
		}
		for i, n := range r.Nodes {
			switch {
			case !n.Metrics:
			case n.Log != "":
				s.byLog[n.Addr+"\x00"+filepath.ToSlash(n.Log)] = logged{run: r, index: i}
			case !n.Began.IsZero() && n.Outcome == "":
				s.cut[n.Addr] = append(s.cut[n.Addr], logged{run: r, index: i})
			}
		}
	}
}

// ResultMetrics reads the metric series of the result of the node at index
// i of r: for a result that r resumed, restored or found up to date, the
// union of what each of its segments logged in the runs still recorded,
// in the order they ran (a step logged again replaces the earlier value: a
// trainer that resumes from a checkpoint repeats the steps after it). A
// node built in one go in r has its own series.
func (r *Run) ResultMetrics(i int, s *Segments) (*metrics.Series, error) {
	n := r.Nodes[i]
	if len(n.Segments) == 0 || s == nil {
		return r.Metrics(i)
	}
	s.load()
	out := &metrics.Series{Points: map[string][]metrics.Point{}}
	for _, seg := range n.Segments {
		var part *metrics.Series
		var err error
		if filepath.ToSlash(seg.Log) == filepath.ToSlash(n.Log) {
			part, err = r.Metrics(i)
		} else if l, ok := s.byLog[n.Addr+"\x00"+filepath.ToSlash(seg.Log)]; ok {
			part, err = l.run.Metrics(l.index)
		} else if l, ok := s.cutAt(n.Addr, seg); ok {
			part, err = l.run.Metrics(l.index)
		} else {
			continue // its run is no longer recorded
		}
		if err != nil {
			return nil, err
		}
		out.Bad += part.Bad
		for k, pts := range part.Points {
			out.Points[k] = append(out.Points[k], pts...)
		}
	}
	for k, pts := range out.Points {
		out.Points[k] = lastPerStep(pts)
	}
	return out, nil
}

// lastPerStep orders points by step, keeping the last of each step.
func lastPerStep(pts []metrics.Point) []metrics.Point {
	sort.SliceStable(pts, func(i, j int) bool { return pts[i].Step < pts[j].Step })
	out := slices.Clone(pts[:0])
	for i, p := range pts {
		if i+1 < len(pts) && pts[i+1].Step == p.Step {
			continue
		}
		out = append(out, p)
	}
	return out
}
