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
