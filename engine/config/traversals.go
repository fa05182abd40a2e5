package config

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// variablesOf is e.Variables(): the traversals e reads, in order. The
// expressions of a generated pipeline are nearly all literals, references
// and templates or lists of those (what the plain parser makes), and for
// them it reads the references off the tree directly: HCL's general walk
// allocates a walker, a scope stack and a closure per node, a tenth of the
// load of 100,000 blocks. Anything else is left to HCL.
func variablesOf(e hcl.Expression) []hcl.Traversal {
	var out []hcl.Traversal
	if !plainVariables(e, &out) {
		return e.Variables()
	}
	return out
}

// plainVariables appends to out the traversals of e when e is made only of
// literals, references, templates and lists; false otherwise (out is then
// to be thrown away).
func plainVariables(e hcl.Expression, out *[]hcl.Traversal) bool {
	switch x := e.(type) {
	case *hclsyntax.LiteralValueExpr:
		return true
	case *hclsyntax.ScopeTraversalExpr:
		*out = append(*out, x.Traversal)
		return true
	case *hclsyntax.TemplateWrapExpr:
		return plainVariables(x.Wrapped, out)
	case *hclsyntax.TemplateExpr:
		for _, part := range x.Parts {
			if !plainVariables(part, out) {
				return false
			}
		}
		return true
	case *hclsyntax.TupleConsExpr:
		for _, elem := range x.Exprs {
			if !plainVariables(elem, out) {
				return false
			}
		}
		return true
	}
	return false
}
