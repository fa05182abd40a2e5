package config

import (
	"fmt"
	"math/big"

	"github.com/hashicorp/hcl/v2"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/zclconf/go-cty/cty"
)

// Moved is a moved block: the records kept under From (state, logs,
// timings, lock entries) belong to To from now on, as Terraform's moved
// blocks do for resources. It changes no key, so nothing rebuilds.
type Moved struct {
	From, To  addr.Node
	DeclRange hcl.Range
}

var movedSchema = MovedBlock.BodySchema()

// decodeMoved reads one moved block's addresses.
func (p *Pipeline) decodeMoved(b *hcl.Block) (*Moved, hcl.Diagnostics) {
	content, diags := b.Body.Content(movedSchema)
	if diags.HasErrors() {
		return nil, diags
	}
	m := &Moved{DeclRange: b.DefRange}
	for _, x := range []struct {
		name string
		to   *addr.Node
	}{{"from", &m.From}, {"to", &m.To}} {
		a := content.Attributes[x.name]
		t, d := hcl.AbsTraversalForExpr(a.Expr)
		n, ok := p.movedAddr(t)
		if d.HasErrors() || !ok {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid moved block",
				Detail:  fmt.Sprintf("%s names a node address, like %s = exec.features.", x.name, x.name),
				Subject: a.Expr.Range().Ptr()})
			continue
		}
		*x.to = n
	}
	return m, diags
}

// movedAddr reads an address from a traversal without requiring that a
// block declares it: a moved block's from names a node that is gone.
func (p *Pipeline) movedAddr(t hcl.Traversal) (addr.Node, bool) {
	if _, ok := p.Kinds[t.RootName()]; !ok {
		return addr.Node{}, false
	}
	name, ok := attrStep(t, 1)
	if !ok || len(t) > 3 {
		return addr.Node{}, false
	}
	a := addr.Node{Kind: t.RootName(), Name: name}
	if len(t) == 3 {
		idx, ok := t[2].(hcl.TraverseIndex)
		if !ok {
			return addr.Node{}, false
		}
		k, ok := indexKey(idx)
		if !ok {
			return addr.Node{}, false
		}
		a.Key = k
	}
	return a, true
}

// checkMoved reports moved blocks that cannot apply to this configuration:
// a from that is still declared, a to that is not, two kinds, and two
// blocks that move the same address.
func (p *Pipeline) checkMoved() hcl.Diagnostics {
	var diags hcl.Diagnostics
	bad := func(m *Moved, detail string) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid moved block", Detail: detail, Subject: m.DeclRange.Ptr()})
	}
	from := map[addr.Node]bool{}
	for _, m := range p.Moved {
		switch {
		case m.From.Kind != m.To.Kind:
			bad(m, fmt.Sprintf("%s and %s are nodes of different kinds; a node can only move to an address of its own kind.", m.From, m.To))
		case p.declares(m.From):
			bad(m, fmt.Sprintf("%s is still declared, so its records cannot move to %s. Remove or rename the block of %s.", m.From, m.To, m.From))
		case !p.declares(m.To):
			bad(m, fmt.Sprintf("%s is not declared in the pipeline: the records of %s need a node to move to. Declare %s, or fix the address.", m.To, m.From, m.To))
		case from[m.From]:
			bad(m, fmt.Sprintf("%s is moved by more than one moved block; keep one.", m.From))
		}
		from[m.From] = true
	}
	return diags
}

// declares reports whether a is a node instance, or a block, of the pipeline.
func (p *Pipeline) declares(a addr.Node) bool {
	if p.index[a] != nil {
		return true
	}
	return !a.Key.Set && len(p.instances[a]) > 0
}

// indexKey is the instance key of a literal index step.
func indexKey(idx hcl.TraverseIndex) (addr.Key, bool) {
	switch {
	case idx.Key.Type() == cty.String:
		return addr.StringKey(idx.Key.AsString()), true
	case idx.Key.Type() == cty.Number:
		if i, acc := idx.Key.AsBigFloat().Int64(); acc == big.Exact {
			return addr.IntKey(int(i)), true
		}
	}
	return addr.Key{}, false
}
