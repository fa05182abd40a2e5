package config

import (
	"maps"
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// AttributeVariables are, by attribute of n's kind, the variables its
// expression reads, directly or through locals, sorted: what lets a plan
// say "var.learning_rate changed" where an attribute's text changed
// because of one. Meta-arguments are left out, and so is a block written
// in JSON (its expressions are not HCL syntax), which gives nil.
func (p *Pipeline) AttributeVariables(n *Node) map[string][]string {
	if n.Block == nil {
		return nil
	}
	body, ok := n.Block.Body().(*hclsyntax.Body)
	if !ok {
		return nil
	}
	out := map[string][]string{}
	for name, a := range body.Attributes {
		if _, meta := n.Block.meta[name]; meta {
			continue
		}
		set := map[string]bool{}
		p.addVariables(a.Expr, set, map[string]bool{})
		if len(set) > 0 {
			out[name] = slices.Sorted(maps.Keys(set))
		}
	}
	return out
}

// addVariables adds to set the variables e reads, following the locals it
// reads (seen guards against a cycle, which validation reports).
func (p *Pipeline) addVariables(e hcl.Expression, set, seen map[string]bool) {
	for _, t := range variablesOf(e) {
		name, ok := attrStep(t, 1)
		if !ok {
			continue
		}
		switch t.RootName() {
		case "var":
			set[name] = true
		case "local":
			if l := p.Locals[name]; l != nil && !seen[name] {
				seen[name] = true
				p.addVariables(l.Expr, set, seen)
			}
		}
	}
}
