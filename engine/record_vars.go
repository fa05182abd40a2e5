package engine

import (
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// runVars are the pipeline's variables for the record of a run, so that
// kiln runs and the report say what a run was run with
// (learning_rate=0.002): a string as it is, any other value as JSON, a
// sensitive one as "(sensitive)" only.
func runVars(p *config.Pipeline) map[string]string {
	if len(p.Variables) == 0 {
		return nil
	}
	out := make(map[string]string, len(p.Variables))
	for name, v := range p.Variables {
		out[name] = varText(v)
	}
	return out
}

func varText(v *config.Variable) string {
	if v.Sensitive {
		return "(sensitive)"
	}
	val, marks := v.Value.UnmarkDeep()
	switch {
	case len(marks) > 0:
		return "(sensitive)"
	case val == cty.NilVal || val.IsNull():
		return "null"
	case !val.IsWhollyKnown():
		return "(unknown)"
	case val.Type() == cty.String:
		return val.AsString()
	}
	b, err := ctyjson.Marshal(val, val.Type())
	if err != nil {
		return "(cannot encode)"
	}
	return string(b)
}
