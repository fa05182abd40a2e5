package config

import (
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// checkSchema reports arguments and blocks the kind does not know, with
// suggestions, before anything is evaluated.
func checkSchema(schema *hcl.BodySchema, body hcl.Body) hcl.Diagnostics {
	if knownArguments(schema, body) {
		return nil
	}
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

// knownArguments reports whether body is a parsed body of arguments alone,
// each named in schema: then Content can report nothing but missing
// arguments, which checkSchema leaves out, and it need not run.
func knownArguments(schema *hcl.BodySchema, body hcl.Body) bool {
	b, ok := body.(*hclsyntax.Body)
	if !ok || len(b.Blocks) > 0 {
		return false
	}
	for name := range b.Attributes {
		if !slices.ContainsFunc(schema.Attributes, func(a hcl.AttributeSchema) bool { return a.Name == name }) {
			return false
		}
	}
	return true
}
