package engine

import (
	"regexp"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/graph"
	"github.com/kilnbuild/kiln/engine/plan"
)

// What views read of a workspace. The commands take these, never the
// workspace's parts, so the parts can change without the CLI noticing.

// Root is the pipeline folder.
func (w *Workspace) Root() string { return w.pipeline.Root }

// Files are the pipeline's parsed files by name, for diagnostics with
// source snippets; nil when the pipeline did not load.
func (w *Workspace) Files() map[string]*hcl.File {
	if w == nil || w.pipeline == nil {
		return nil
	}
	return w.pipeline.Files
}

// NodeCount is how many nodes the pipeline has.
func (w *Workspace) NodeCount() int { return len(w.pipeline.Nodes) }

// StateVersion is the lineage and serial of the state the workspace read,
// as plan -json reports them.
func (w *Workspace) StateVersion() (lineage string, serial uint64) {
	return w.state.Lineage, w.state.Serial
}

// StepCounter is a node's progress pattern, whose first group is the step
// it reached, and its total (0: unknown).
type StepCounter struct {
	Pattern *regexp.Regexp
	Total   int64
}

// StepCounters are the step counters nodes declare with progress and
// total, by address.
func (w *Workspace) StepCounters() map[addr.Node]StepCounter {
	m := map[addr.Node]StepCounter{}
	for _, n := range w.pipeline.Nodes {
		if n.Meta.Progress == "" {
			continue
		}
		if re, err := regexp.Compile(n.Meta.Progress); err == nil {
			m[n.Addr] = StepCounter{Pattern: re, Total: n.Meta.Total}
		}
	}
	return m
}

// InScope is how many nodes an apply of this workspace acts on (all, or
// the targets with what they need).
func (w *Workspace) InScope() int {
	n := 0
	for i := range w.dag.Nodes {
		if w.scope == nil || w.scope[i] {
			n++
		}
	}
	return n
}

// LastDurations are the durations of the nodes' last successful runs.
func (w *Workspace) LastDurations() map[addr.Node]time.Duration {
	out := map[addr.Node]time.Duration{}
	for _, n := range w.dag.Nodes {
		if r := w.state.Records[n.Addr.String()]; r.Good() && r.Duration > 0 {
			out[n.Addr] = r.Duration
		}
	}
	return out
}

// RunID is the number of the record the last apply wrote (kiln report
// N); 0 when it wrote none.
func (w *Workspace) RunID() int { return w.runID }

// RunRecordErr is a failure to write the record of the last apply (for
// kiln report), which did not stop the apply.
func (w *Workspace) RunRecordErr() error { return w.recordErr }

// PlanGraph is the DAG with each vertex's action in pl, for kiln graph;
// with changedOnly, only the nodes pl would change and what they depend on.
func (w *Workspace) PlanGraph(pl *plan.Plan, changedOnly bool) (*graph.Graph, func(v int) plan.Action) {
	actions := map[addr.Node]plan.Action{}
	for _, d := range pl.Changes {
		actions[d.Node.Addr] = d.Action
	}
	g := w.dag.Graph
	if changedOnly {
		var roots []int
		for v, n := range w.dag.Nodes {
			if act, ok := actions[n.Addr]; ok && act != plan.NoOp {
				roots = append(roots, v)
			}
		}
		g = g.Subgraph(g.Closure(roots))
	}
	return g, func(v int) plan.Action {
		n, err := w.NodeByAddr(g.Name(v))
		if err != nil {
			return plan.NoOp
		}
		return actions[n.Addr]
	}
}
