package engine

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/run"
	"github.com/zclconf/go-cty/cty"
)

// Validate evaluates every node's configuration, every local and every
// output with what is known before anything runs, and reports what would
// fail anyway: an unknown function, missing or mistyped arguments, input
// files that do not exist, in-place outputs that leave the pipeline folder,
// a node whose result another pipeline file of the folder recorded.
// It runs nothing and writes nothing.
func (w *Workspace) Validate() hcl.Diagnostics {
	diags := w.pipeline.CheckExpressions()
	diags = append(diags, w.decider.SharedNodes()...)
	// Nodes are checked in the planner's waves, those of one wave in
	// parallel; each sees its upstreams' values as if they were created.
	vals := plan.NewValues()
	nodeDiags := make([]hcl.Diagnostics, len(w.dag.Nodes))
	after := make([]cty.Value, len(w.dag.Nodes))
	plan.InWaves(w.dag, func(v int) {
		nodeDiags[v], after[v] = w.validateNode(w.dag.Nodes[v], vals)
	}, func(v int) {
		if after[v] != cty.NilVal {
			vals.Set(w.dag.Nodes[v].Addr, after[v])
		}
	})
	for _, v := range w.dag.Graph.Order() {
		diags = append(diags, nodeDiags[v]...)
	}
	return diags
}

// validateNode is what Validate finds of n, and the value later nodes see
// of it (cty.NilVal where it does not evaluate).
func (w *Workspace) validateNode(n *config.Node, vals *plan.Values) (hcl.Diagnostics, cty.Value) {
	p := w.pipeline
	ev, diags := p.Evaluate(n, vals, plan.SelfOutPlaceholder)
	if diags.HasErrors() {
		return diags, cty.NilVal
	}
	after := w.decider.ValueAfter(&plan.Decision{Node: n, Kind: n.Block.Kind, Action: plan.Create,
		KindNode: &kind.Node{Addr: n.Addr, Config: ev.Config, Root: p.Root, Out: p.OutPath(n.Addr), State: p.StateDir}})
	problem := func(summary, attr string, err error) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary,
			Detail: fmt.Sprintf("%s: %v.", n.Addr, err), Subject: n.AttrRange(attr).Ptr()})
	}
	if _, err := plan.ResolveInputs(p.Root, staticInputs(p.StateDir, n, ev.Inputs)); err != nil {
		var missing *plan.MissingInputError
		if errors.As(err, &missing) {
			// It stops this node (and what depends on it), not the
			// pipeline: a warning here, a failed node at apply.
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Missing input",
				Detail: fmt.Sprintf("%s: %v; it cannot run, and neither can what depends on it.", n.Addr, err), Subject: n.AttrRange("inputs").Ptr()})
		} else if bad := (*plan.BadInputError)(nil); errors.As(err, &bad) {
			problem("Invalid input", "inputs", err)
		} else {
			problem("Missing input", "inputs", err)
		}
	}
	if err := w.checkOutputs(ev.Config); err != nil {
		problem("Invalid output", "outputs", err)
	}
	if c, ok := n.Block.Kind.(kind.Checker); ok && ev.Config.IsWhollyKnown() {
		kn := &kind.Node{Addr: n.Addr, Config: ev.Config, Root: p.Root, Out: p.OutPath(n.Addr), State: p.StateDir}
		if err := c.Check(kn); err != nil {
			diags = append(diags, nodeConfigError(n, err))
		}
	}
	return diags, after
}

// staticInputs drops input patterns inside the state folder, and those
// another node writes in place: an upstream node's output only exists once
// that node has run.
func staticInputs(stateDir string, n *config.Node, patterns []string) []string {
	var out []string
	for _, s := range patterns {
		if _, produced := n.InputsFrom[s]; produced {
			continue
		}
		if !strings.HasPrefix(s, stateDir+"/") && !strings.HasPrefix(s, plan.SelfOutPlaceholder) {
			out = append(out, s)
		}
	}
	return out
}

// checkOutputs refuses in-place outputs that leave the pipeline folder.
func (w *Workspace) checkOutputs(cfg cty.Value) error {
	outs := stringsAttr(cfg, "outputs")
	if len(outs) == 0 {
		return nil
	}
	_, err := run.InPlaceOutputs(w.pipeline.Root, w.pipeline.StateDir, outs, false)
	return err
}

// decidedOutputs are the decisions whose in-place outputs are invalid
// (checkOutputs), checked as each is made, while its configuration and
// syntax are held.
type decidedOutputs struct {
	mu  sync.Mutex
	bad map[*plan.Decision]*hcl.Diagnostic
}

func (o *decidedOutputs) check(w *Workspace, d *plan.Decision) {
	if d.Config == nil {
		return
	}
	err := w.checkOutputs(d.Config.Config)
	if err == nil {
		return
	}
	diag := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid output",
		Detail: fmt.Sprintf("%s: %v.", d.Node.Addr, err), Subject: d.Node.AttrRange("outputs").Ptr()}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.bad == nil {
		o.bad = map[*plan.Decision]*hcl.Diagnostic{}
	}
	o.bad[d] = diag
}

// of is d's diagnostic, nil when its outputs are valid.
func (o *decidedOutputs) of(d *plan.Decision) *hcl.Diagnostic {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.bad[d]
}

func stringsAttr(cfg cty.Value, name string) []string {
	if !cfg.Type().IsObjectType() || !cfg.Type().HasAttribute(name) {
		return nil
	}
	v := cfg.GetAttr(name)
	if v.IsNull() || !v.IsWhollyKnown() || !(v.Type().IsListType() || v.Type().IsTupleType()) {
		return nil
	}
	var out []string
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		if e.Type() == cty.String && !e.IsNull() {
			e, _ = e.Unmark()
			out = append(out, e.AsString())
		}
	}
	return out
}

// EdgeCount is the number of dependencies in the pipeline.
func (w *Workspace) EdgeCount() int {
	n := 0
	for v := range w.dag.Nodes {
		n += len(w.dag.Graph.Deps(v))
	}
	return n
}

// nodeConfigError is a configuration a kind refuses, at the node's block.
func nodeConfigError(n *config.Node, err error) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid configuration of " + n.Addr.String(),
		Detail: err.Error() + ".", Subject: n.DeclRange.Ptr()}
}
