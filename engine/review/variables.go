package review

import (
	"maps"
	"slices"
	"strings"

	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/state"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// VariableChange is a pipeline variable whose value differs between the
// two versions (a changed default, or one declared or removed). Values are
// JSON; a sensitive value is shown as "(sensitive HASH)", as in keys (a
// hash keyed with the state folder's secret).
type VariableChange struct {
	Name string `json:"name"`
	Old  string `json:"old"` // "(undeclared)" when only the new version has it
	New  string `json:"new"` // "(undeclared)" when only the old version has it
}

const undeclared = "(undeclared)"

// variableChanges lists the variables whose resolved values differ, by name.
func variableChanges(old, cur *config.Pipeline) []VariableChange {
	// Sensitive values are shown as key lines show them: hashed with the
	// state folder's secret, which both sides share.
	secret := state.SecretOf(cur.StateDir)
	names := map[string]bool{}
	for n := range old.Variables {
		names[n] = true
	}
	for n := range cur.Variables {
		names[n] = true
	}
	out := []VariableChange{}
	for _, n := range slices.Sorted(maps.Keys(names)) {
		o, c := variableText(old.Variables[n], secret), variableText(cur.Variables[n], secret)
		if o == c {
			continue
		}
		if o != undeclared && c != undeclared {
			o, c = excerpt(o, c)
		}
		out = append(out, VariableChange{Name: n, Old: clip(o), New: clip(c)})
	}
	return out
}

// variableText is a variable's value as JSON; a sensitive one is only its
// short hash, as key lines write it, so a change is reported but not shown.
func variableText(v *config.Variable, secret *state.Secret) string {
	if v == nil {
		return undeclared
	}
	val, _ := v.Value.UnmarkDeep()
	if val == cty.NilVal || val.IsNull() {
		return "null"
	}
	if !val.IsWhollyKnown() {
		return "(unknown)"
	}
	b, err := ctyjson.Marshal(val, val.Type())
	if err != nil {
		return "(cannot encode)"
	}
	if v.Sensitive {
		sum, err := secret.Sum(b)
		if err != nil {
			return "(sensitive)"
		}
		return "(sensitive " + sum + ")"
	}
	return string(b)
}

// minMasked is the shortest sensitive value masked in reasons: shorter ones
// would hide unrelated text and reveal little.
const minMasked = 4

// maskSensitive replaces the values of sensitive string variables, at
// either version, wherever a reason quotes them, so an attribute that
// embeds a secret does not print it.
func maskSensitive(r *Report, pipelines ...*config.Pipeline) {
	var pairs []string
	for _, p := range pipelines {
		for _, v := range p.Variables {
			if !v.Sensitive {
				continue
			}
			val, _ := v.Value.UnmarkDeep()
			if val == cty.NilVal || val.IsNull() || !val.IsKnown() || val.Type() != cty.String || len(val.AsString()) < minMasked {
				continue
			}
			pairs = append(pairs, val.AsString(), "(sensitive)")
		}
	}
	if len(pairs) == 0 {
		return
	}
	mask := strings.NewReplacer(pairs...).Replace
	for i := range r.Changed {
		for j := range r.Changed[i].Changes {
			c := &r.Changed[i].Changes[j]
			c.Old, c.New, c.Message, c.Detail = mask(c.Old), mask(c.New), mask(c.Message), mask(c.Detail)
		}
	}
}
