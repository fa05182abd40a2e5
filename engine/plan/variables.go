package plan

import (
	"maps"
	"slices"
	"strings"

	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/state"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// nameVariables gives dec the variables its attributes read (Vars), and
// where an attribute changed and a variable it reads changed since the
// node was built, replaces that attribute's reason by the variable's:
// "var.learning_rate changed: 0.001 → 0.002 (read by command)" rather
// than the command's text before and after. A record kept by a kiln that
// did not keep variables names none.
func (d *Decider) nameVariables(dec *Decision) {
	p, n := d.Pipeline, dec.Node
	byAttr := p.AttributeVariables(n)
	if len(byAttr) == 0 {
		return
	}
	dec.Vars = map[string]string{}
	for _, names := range byAttr {
		for _, name := range names {
			if _, done := dec.Vars[name]; !done {
				dec.Vars[name] = VariableText(p, name)
			}
		}
	}
	rec := dec.Record
	if rec == nil || rec.Vars == nil {
		return
	}
	readBy := map[string][]string{} // changed variable → the changed attributes that read it
	var kept []Reason
	for _, r := range dec.Reasons {
		var changed []string
		if r.Kind == ReasonAttribute {
			for _, name := range byAttr[r.Subject] {
				if old, ok := rec.Vars[name]; ok && old != dec.Vars[name] {
					changed = append(changed, name)
				}
			}
		}
		if len(changed) == 0 {
			kept = append(kept, r)
			continue
		}
		for _, name := range changed {
			if !slices.Contains(readBy[name], r.Subject) {
				readBy[name] = append(readBy[name], r.Subject)
			}
		}
	}
	if len(readBy) == 0 {
		return
	}
	var named []Reason
	for _, name := range slices.Sorted(maps.Keys(readBy)) {
		named = append(named, Reason{Kind: ReasonVariable, Subject: "var." + name,
			Old: Clip(rec.Vars[name]), New: Clip(dec.Vars[name]), Detail: strings.Join(readBy[name], ", ")})
	}
	dec.Reasons = append(named, kept...)
}

// VariableText is a variable's value as a record keeps it: a string as it
// is, any other value as JSON, a sensitive one only as its hash keyed with
// the state folder's secret, so that a change is seen but never shown.
func VariableText(p *config.Pipeline, name string) string {
	v := p.Variables[name]
	if v == nil {
		return "(undeclared)"
	}
	val, marks := v.Value.UnmarkDeep()
	var text string
	switch {
	case val == cty.NilVal || val.IsNull():
		text = "null"
	case !val.IsWhollyKnown():
		text = "(unknown)"
	case val.Type() == cty.String:
		text = val.AsString()
	default:
		b, err := ctyjson.Marshal(val, val.Type())
		if err != nil {
			return "(cannot encode)"
		}
		text = string(b)
	}
	if v.Sensitive || len(marks) > 0 {
		sum, err := state.SecretOf(p.StateDir).Sum([]byte(text))
		if err != nil {
			return "(sensitive)"
		}
		return "(sensitive " + sum + ")"
	}
	return text
}
