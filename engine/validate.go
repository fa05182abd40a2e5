package engine

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/kilnbuild/kiln/engine/plan"
)

// Validate evaluates every node's configuration with what is known before
// anything runs, reporting missing or mistyped arguments. It reads no state
// and runs nothing.
func (w *Workspace) Validate() hcl.Diagnostics {
	var diags hcl.Diagnostics
	vals := plan.NewValues()
	for _, v := range w.DAG.Graph.Order() {
		n := w.DAG.Nodes[v]
		_, d := w.Pipeline.Evaluate(n, vals, plan.SelfOutPlaceholder)
		diags = append(diags, d...)
	}
	return diags
}

// EdgeCount is the number of dependencies in the pipeline.
func (w *Workspace) EdgeCount() int {
	n := 0
	for v := range w.DAG.Nodes {
		n += len(w.DAG.Graph.Deps(v))
	}
	return n
}
