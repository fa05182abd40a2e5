package engine

import (
	"context"

	"github.com/hashicorp/hcl/v2"
	"github.com/kilnbuild/kiln/engine/plan"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// Output is an evaluated pipeline output.
type Output struct {
	Name  string
	Value string // JSON, or "(sensitive)"
}

// Outputs evaluates the pipeline's outputs against the values the last
// apply left, or, without one, against the current state.
func (w *Workspace) Outputs() ([]Output, hcl.Diagnostics) {
	vals := w.applied
	var diags hcl.Diagnostics
	if vals == nil {
		var pl *plan.Plan
		pl, diags = w.Decider.Make(context.Background(), w.DAG, w.Scope)
		if diags.HasErrors() {
			return nil, diags
		}
		vals = plan.NewValues()
		for _, d := range pl.Changes {
			vals.Set(d.Node.Addr, w.Decider.ValueAfter(d))
		}
	}
	var out []Output
	for _, o := range w.Pipeline.Outputs {
		v, d := w.Pipeline.EvaluateOutput(o, vals)
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		if o.Sensitive || v.IsMarked() {
			out = append(out, Output{Name: o.Name, Value: "(sensitive)"})
			continue
		}
		if !v.IsWhollyKnown() {
			out = append(out, Output{Name: o.Name, Value: "(known after apply)"})
			continue
		}
		b, err := ctyjson.Marshal(v, v.Type())
		if err != nil {
			continue
		}
		out = append(out, Output{Name: o.Name, Value: string(b)})
	}
	return out, diags
}
