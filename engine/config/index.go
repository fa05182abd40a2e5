package config

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// Per-instance references. exec.map[each.key] in a for_each block names
// one instance of exec.map for each instance of the block: the index is
// known when the pipeline loads (it uses each, count, variables, path and
// locals that reference no node), so the edge goes to that one instance,
// the instance's key holds that one digest, and its configuration sees that
// one instance. A reference to the whole block (exec.map, length(exec.map),
// [for k, m in exec.map : m.out]) depends on every instance.

// rangeKey identifies a source range, so that a traversal found by
// Variables() can be matched to the index expression it is the collection
// of.
type rangeKey struct {
	file       string
	start, end int
}

func keyOf(r hcl.Range) rangeKey { return rangeKey{r.Filename, r.Start.Byte, r.End.Byte} }

// instanceIndexes finds, in a native-syntax body, every KIND.NAME[EXPR]
// whose index is known at load time, by the range of its KIND.NAME part.
// Bodies in JSON syntax have none: their references depend on every
// instance, which is never wrong, only coarser. callsEnv reports whether
// the body or exprs may call env() (always, for a body in JSON syntax).
func (p *Pipeline) instanceIndexes(body hcl.Body, exprs ...hcl.Expression) (indexes map[rangeKey]hcl.Expression, callsEnv bool) {
	var out map[rangeKey]hcl.Expression
	visit := func(node hclsyntax.Node) hcl.Diagnostics {
		if c, ok := node.(*hclsyntax.FunctionCallExpr); ok && c.Name == "env" {
			callsEnv = true
		}
		ix, ok := node.(*hclsyntax.IndexExpr)
		if !ok {
			return nil
		}
		coll, ok := ix.Collection.(*hclsyntax.ScopeTraversalExpr)
		if !ok || len(coll.Traversal) != 2 {
			return nil
		}
		if _, isKind := p.Kinds[coll.Traversal.RootName()]; !isKind || !p.loadTimeKnown(ix.Key) {
			return nil
		}
		if out == nil {
			out = map[rangeKey]hcl.Expression{}
		}
		out[keyOf(coll.Traversal.SourceRange())] = ix.Key
		return nil
	}
	if b, ok := body.(*hclsyntax.Body); ok {
		if !plainTree(b) {
			hclsyntax.VisitAll(b, visit)
		}
	} else {
		callsEnv = true
	}
	for _, e := range exprs {
		if se, ok := e.(hclsyntax.Expression); ok {
			if !plainTree(se) {
				hclsyntax.VisitAll(se, visit)
			}
		} else {
			callsEnv = true
		}
	}
	return out, callsEnv
}

// loadTimeKnown reports whether an expression can be evaluated per instance
// when the pipeline loads.
func (p *Pipeline) loadTimeKnown(e hcl.Expression) bool {
	for _, t := range variablesOf(e) {
		switch t.RootName() {
		case "each", "count", "var", "path":
		case "local":
			name, ok := attrStep(t, 1)
			// nodes holds what the local references through other
			// locals too (localClosure ran before blocks are scanned).
			if !ok || p.Locals[name] == nil || len(p.Locals[name].nodes) > 0 {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// instanceContext is the context an index is evaluated in for instance n:
// the static context plus each or count.
func instanceContext(base *hcl.EvalContext, n *Node) *hcl.EvalContext {
	ctx := base.NewChild()
	ctx.Variables = map[string]cty.Value{}
	if n.Each != nil {
		ctx.Variables["each"] = cty.ObjectVal(map[string]cty.Value{"key": n.Each.Key, "value": n.Each.Value})
	}
	if n.CountIdx >= 0 {
		ctx.Variables["count"] = cty.ObjectVal(map[string]cty.Value{"index": cty.NumberIntVal(int64(n.CountIdx))})
	}
	return ctx
}

// instanceKey evaluates a reference's index for instance n and returns the
// instance it names. ok is false when the index cannot be evaluated or is
// not a key of the target block; the reference then depends on every
// instance, and evaluation reports what is wrong with the index.
func (p *Pipeline) instanceKey(ctx *hcl.EvalContext, target addr.Node, index hcl.Expression) (addr.Node, bool) {
	b := p.blockOf[target]
	if b == nil || b.ForEach == nil && b.Count == nil {
		return target, false
	}
	if _, known := p.blockInstances(target); !known {
		return target, false // a dynamic block not expanded yet: its placeholder
	}
	v, diags := index.Value(ctx)
	if diags.HasErrors() || !v.IsWhollyKnown() || v.IsNull() || v.IsMarked() {
		return target, false
	}
	if b.ForEach != nil {
		s, err := convert.Convert(v, cty.String)
		if err != nil {
			return target, false
		}
		target.Key = addr.StringKey(s.AsString())
		return target, true
	}
	num, err := convert.Convert(v, cty.Number)
	if err != nil {
		return target, false
	}
	i, acc := num.AsBigFloat().Int64()
	if acc != 0 {
		return target, false
	}
	target.Key = addr.IntKey(int(i))
	return target, true
}
