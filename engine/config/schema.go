package config

import (
	"github.com/hashicorp/hcl/v2"
)

// checkSchema reports arguments and blocks the kind does not know, with
// suggestions, before anything is evaluated.
func checkSchema(schema *hcl.BodySchema, body hcl.Body) hcl.Diagnostics {
	// The meta-arguments are already taken out of body; the schema lists
	// them again only so that a misspelt one is answered with "Did you mean".
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
