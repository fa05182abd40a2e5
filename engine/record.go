package engine

import (
	"os"

	"github.com/kilnbuild/kiln/engine/history"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/metrics"
	"github.com/kilnbuild/kiln/engine/pool"
	"github.com/kilnbuild/kiln/engine/run"
)

// beginRun starts the record of an apply (engine/history): the nodes in
// scope, in dependency order, with their dependencies, resources and
// metrics, and the sizes of the pools. It returns nil when o.KeepRuns is
// negative.
func (w *Workspace) beginRun(o ApplyOptions, host string, pools pool.Set) (*history.Recorder, error) {
	if o.KeepRuns < 0 {
		return nil, nil
	}
	hdr := history.Run{Host: host, PID: os.Getpid(), Command: o.Command, Version: Version, Root: w.pipeline.Root,
		Parallelism: o.Parallelism, Capacity: pools.Capacity(), Vars: runVars(w.pipeline), Commit: gitCommit(w.pipeline.Root)}
	specs := map[int]*metrics.Spec{}
	index := map[int]int{} // DAG vertex → node index in the run
	for _, v := range w.dag.Graph.Order() {
		if w.scope != nil && !w.scope[v] {
			continue
		}
		n := w.dag.Nodes[v]
		executor := n.Meta.Executor
		if executor == "" {
			executor = "local"
		}
		node := &history.Node{Addr: n.Addr.String(), Kind: n.Addr.Kind, Resources: n.Meta.Resources, Executor: executor}
		if s := n.Meta.Slurm; s != nil && s.Nodes > 1 && n.Meta.Executor != "" {
			node.Machines = s.Nodes
		}
		for _, d := range w.dag.Graph.Deps(v) {
			if j, ok := index[d]; ok {
				node.Deps = append(node.Deps, j)
			}
		}
		index[v] = len(hdr.Nodes)
		if n.Meta.Metrics != nil {
			specs[index[v]] = n.Meta.Metrics
		}
		hdr.Nodes = append(hdr.Nodes, node)
	}
	return history.Begin(history.Options{StateDir: w.pipeline.StateDir, Keep: o.KeepRuns, Run: hdr, Specs: specs})
}

// withRecorder adds the recorder to the apply's hooks.
// reportProgress hands the kinds that report their transfers' progress to
// the hooks that show it, or nil so that a kind keeps nothing of an earlier
// apply.
func reportProgress(kinds map[string]kind.Kind, h run.Hooks) {
	var show func(addr string, done, total int64)
	if c, ok := h.(run.ByteCounter); ok {
		show = c.Bytes
	}
	for _, k := range kinds {
		if r, ok := k.(kind.ProgressReporter); ok {
			r.ReportProgress(show)
		}
	}
}

func withRecorder(h run.Hooks, rec *history.Recorder) run.Hooks {
	switch {
	case rec == nil:
		return h
	case h == nil:
		return rec
	}
	return run.Tee{h, rec}
}
