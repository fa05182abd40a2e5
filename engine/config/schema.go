package config

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/kilnbuild/kiln/engine/kind"
)

// checkSchema reports arguments and blocks the kind does not know, with
// suggestions, before anything is evaluated.
func checkSchema(k kind.Kind, body hcl.Body) hcl.Diagnostics {
	schema := hcldec.ImpliedSchema(k.Spec())
	// The meta-arguments are already taken out of body; listing them again
	// only lets a misspelt one be answered with "Did you mean".
	for _, m := range metaArgs {
		schema.Attributes = append(schema.Attributes, hcl.AttributeSchema{Name: m})
	}
	_, diags := body.Content(schema)
	var out hcl.Diagnostics
	for _, d := range diags {
		// Missing required arguments are reported once, by the full decode,
		// together with their meaning.
		if d.Summary == "Missing required argument" {
			continue
		}
		out = append(out, d)
	}
	return out
}
