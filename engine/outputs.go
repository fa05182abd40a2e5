package engine

import (
	"context"
	"slices"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// Output is an evaluated pipeline output.
type Output struct {
	Name        string
	Description string
	Value       string    // JSON, "(sensitive)" or "(known after apply)"
	Val         cty.Value // the value itself, unmarked; unknown until built
	Sensitive   bool
	// Pending are the nodes the output comes from that are not built and
	// up to date: its value means nothing until kiln apply builds them.
	Pending []string
}

// Outputs evaluates the pipeline's outputs against the values the last
// apply left, or, without one, against the current state.
func (w *Workspace) Outputs() ([]Output, hcl.Diagnostics) {
	vals := w.applied
	var diags hcl.Diagnostics
	pending := map[addr.Node][]string{} // by block address
	if vals == nil {
		var pl *plan.Plan
		pl, diags = w.decider.Make(context.Background(), w.dag, w.scope)
		if diags.HasErrors() {
			return nil, diags
		}
		vals = plan.NewValues()
		for _, d := range pl.Changes {
			vals.Set(d.Node.Addr, w.decider.ValueAfter(d))
			if d.Action != plan.NoOp {
				b := d.Node.Addr.Block()
				pending[b] = append(pending[b], d.Node.Addr.String())
			}
		}
	}
	var out []Output
	for _, decl := range w.pipeline.Outputs {
		v, d := w.pipeline.EvaluateOutput(decl, vals)
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		sensitive := decl.Sensitive || v.ContainsMarked()
		v, _ = v.UnmarkDeep()
		o := Output{Name: decl.Name, Description: decl.Description, Val: v, Sensitive: sensitive}
		for _, dep := range decl.Deps {
			o.Pending = append(o.Pending, pending[dep]...)
		}
		sort.Strings(o.Pending)
		o.Pending = slices.Compact(o.Pending)
		switch {
		case sensitive:
			o.Value = "(sensitive)"
		case !v.IsWhollyKnown() || len(o.Pending) > 0:
			o.Value = "(known after apply)"
		default:
			b, err := ctyjson.Marshal(v, v.Type())
			if err != nil {
				continue
			}
			o.Value = string(b)
		}
		out = append(out, o)
	}
	return out, diags
}
