package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// A node of a generated pipeline is mostly strings that name other nodes'
// out: command = "cat ${exec.a.out}/x | cksum > $KILN_OUT/y". Evaluating it
// with HCL means building, for every node, the objects its expressions are
// evaluated against (var, path, self, each and an object per kind holding
// each referenced node's object), most of what deciding such a node costs.
// evaluateDirect reads those expressions straight from the values they
// name instead: a literal, a template, a list of them, and references to
// self.out, path.root, each.key, count.index, KIND.NAME.ATTR of a
// single-instance node, KIND.NAME[KEY].ATTR of an instance the node
// depends on and each.value.ATTR of the instance a for_each = KIND.NAME
// follows. It takes only what it gives exactly as HCL would — known
// values, no marks, no conversion but a template's and the spec's — and
// gives up (false) at anything else, so that HCL evaluates the node and
// says what is wrong: a diagnostic, an unknown value and its refinements,
// a null, a sensitive value, a local, a function call. KILN_PLAN_VERIFY=1
// evaluates every node both ways and fails on a difference (VerifyDirect).

// NodeStrings is what Values may offer besides NodeValue: one string
// attribute of a node (out, digest, blocked) without making the node's
// object. ok is false when it cannot say; the caller reads NodeValue.
type NodeStrings interface {
	NodeString(a addr.Node, attr string) (v cty.Value, ok bool)
}

// direct evaluates the plain expressions of one node.
type direct struct {
	p       *Pipeline
	n       *Node
	vals    Values
	selfOut string
}

// evaluateDirect is EvaluateRun of n without building an evaluation
// context, for a body whose every expression direct reads; false for any
// other (see above).
func (p *Pipeline) evaluateDirect(n *Node, vals Values, selfOut string, body hcl.Body) (*Evaluated, bool) {
	b := n.Block
	syn, native := body.(*hclsyntax.Body)
	if !native || b.spec.decoding == nil || p.sensitive || b.bodyLocals || b.callsEnv || n.Placeholder() || !p.localsReadNothing(b, vals) {
		return nil, false
	}
	for _, name := range envExtensionArgs {
		if _, set := b.meta[name]; set {
			return nil, false
		}
	}
	d := &direct{p: p, n: n, vals: vals, selfOut: selfOut}
	cfg, diags, ok := decodeAttrs(syn, b.spec.decoding, d.attr)
	if !ok || len(diags) > 0 {
		return nil, false
	}
	ev := &Evaluated{Config: cfg, EnvRead: map[string]string{}}
	if a, set := b.meta["inputs"]; set {
		if ev.Inputs, ok = d.strings(a.Expr); !ok {
			return nil, false
		}
	}
	if len(envConflicts(n, cfg, nil)) > 0 {
		return nil, false
	}
	return ev, true
}

// localsReadNothing reports whether the locals b's for_each or count uses
// read no variable of the environment and no file: HCL's evaluation of each
// node counts their reads as the node's own. Such a local references no
// node, so it is evaluated once for the pipeline (p.static), with what it
// and the locals it uses read.
func (p *Pipeline) localsReadNothing(b *Block, vals Values) bool {
	for _, name := range b.locals {
		p.staticMu.Lock()
		e, ok := p.static[name]
		p.staticMu.Unlock()
		if !ok {
			if _, diags := p.localValues(&Block{locals: []string{name}}, vals, newReads()); diags.HasErrors() {
				return false
			}
			p.staticMu.Lock()
			e, ok = p.static[name]
			p.staticMu.Unlock()
		}
		if !ok || len(e.rec.env) > 0 || len(e.rec.files) > 0 {
			return false
		}
	}
	return true
}

// attr is an attribute's value as decodeAttr gives it, when direct reads it.
func (d *direct) attr(a *hclsyntax.Attribute, spec *hcldec.AttrSpec) (cty.Value, hcl.Diagnostics, bool) {
	v, ok := d.value(a.Expr)
	if !ok {
		return cty.NilVal, nil, false
	}
	conv, err := convert.Convert(v, spec.Type)
	if err != nil {
		return cty.NilVal, nil, false
	}
	return conv, nil, true
}

// strings is a list argument of known strings (inputs), as stringList reads
// it.
func (d *direct) strings(e hcl.Expression) ([]string, bool) {
	t, ok := e.(*hclsyntax.TupleConsExpr)
	if !ok {
		return nil, false
	}
	var out []string
	for _, x := range t.Exprs {
		v, ok := d.value(x)
		if !ok || !plainString(v) {
			return nil, false
		}
		out = append(out, v.AsString())
	}
	return out, true
}

// value is e's value, when direct reads it.
func (d *direct) value(e hcl.Expression) (cty.Value, bool) {
	switch e := e.(type) {
	case *hclsyntax.LiteralValueExpr:
		return e.Val, true
	case *hclsyntax.TemplateWrapExpr:
		return d.value(e.Wrapped)
	case *hclsyntax.TemplateExpr:
		return d.template(e)
	case *hclsyntax.ScopeTraversalExpr:
		return d.traversal(e.Traversal)
	case *hclsyntax.RelativeTraversalExpr:
		return d.indexed(e)
	case *hclsyntax.TupleConsExpr:
		if len(e.Exprs) == 0 {
			return cty.EmptyTupleVal, true
		}
		elems := make([]cty.Value, len(e.Exprs))
		for i, x := range e.Exprs {
			v, ok := d.value(x)
			if !ok || !plainString(v) {
				return cty.NilVal, false
			}
			elems[i] = v
		}
		return cty.TupleVal(elems), true
	}
	return cty.NilVal, false
}

// indexed is KIND.NAME[KEY].ATTR where KEY is not a literal step of the
// reference (each.key).
func (d *direct) indexed(e *hclsyntax.RelativeTraversalExpr) (cty.Value, bool) {
	idx, isIndex := e.Source.(*hclsyntax.IndexExpr)
	if !isIndex || len(e.Traversal) != 1 {
		return cty.NilVal, false
	}
	attr, isAttr := e.Traversal[0].(hcl.TraverseAttr)
	block, isRef := idx.Collection.(*hclsyntax.ScopeTraversalExpr)
	if !isAttr || !isRef {
		return cty.NilVal, false
	}
	key, ok := d.value(idx.Key)
	if !ok || !plainString(key) {
		return cty.NilVal, false
	}
	return d.instanceAttr(block.Traversal, key.AsString(), attr.Name)
}

// template is a template of known values, joined as strings.
func (d *direct) template(e *hclsyntax.TemplateExpr) (cty.Value, bool) {
	if len(e.Parts) == 1 {
		return d.part(e.Parts[0])
	}
	var sb strings.Builder
	for _, part := range e.Parts {
		v, ok := d.part(part)
		if !ok {
			return cty.NilVal, false
		}
		sb.WriteString(v.AsString())
	}
	return cty.StringVal(sb.String()), true
}

// part is a template part as a string: a known string, number or bool,
// neither null nor marked, converted as HCL's template converts it.
func (d *direct) part(e hclsyntax.Expression) (cty.Value, bool) {
	v, ok := d.value(e)
	if !ok || !v.IsKnown() || v.IsNull() || v.IsMarked() || !v.Type().IsPrimitiveType() {
		return cty.NilVal, false
	}
	if v.Type() == cty.String {
		return v, true
	}
	s, err := convert.Convert(v, cty.String)
	return s, err == nil
}

// plainString reports whether v is a known string, neither null nor
// marked: what a template joins as it is.
func plainString(v cty.Value) bool {
	return v.Type() == cty.String && v.IsKnown() && !v.IsNull() && !v.IsMarked()
}

// traversal is the value of a reference direct reads.
func (d *direct) traversal(t hcl.Traversal) (cty.Value, bool) {
	if len(t) == 4 {
		// KIND.NAME["KEY"].ATTR
		key, isIndex := t[2].(hcl.TraverseIndex)
		attr, isAttr := t[3].(hcl.TraverseAttr)
		if !isIndex || !isAttr || !plainString(key.Key) {
			return cty.NilVal, false
		}
		return d.instanceAttr(t[:2], key.Key.AsString(), attr.Name)
	}
	if len(t) < 2 || len(t) > 3 {
		return cty.NilVal, false
	}
	first, ok := attrStep(t, 1)
	if !ok {
		return cty.NilVal, false
	}
	root := t.RootName()
	if len(t) == 2 {
		switch {
		case root == "self" && first == "out":
			return cty.StringVal(d.selfOut), true
		case root == "path" && first == "root":
			return cty.StringVal(d.p.Root), true
		case root == "each" && first == "key" && d.n.Each != nil:
			return d.n.Each.Key, true
		case root == "count" && first == "index" && d.n.CountIdx >= 0:
			return cty.NumberIntVal(int64(d.n.CountIdx)), true
		}
		return cty.NilVal, false
	}
	second, ok := attrStep(t, 2)
	if ok && root == "each" && first == "value" && d.n.Each != nil {
		// for_each = KIND.NAME: each.value is the followed instance's.
		if src, follows := d.n.followed(); follows {
			return d.nodeAttr(src, second)
		}
		return cty.NilVal, false
	}
	if _, isKind := d.p.Kinds[root]; !ok || !isKind {
		return cty.NilVal, false
	}
	a := addr.Node{Kind: root, Name: first}
	b := d.p.blockOf[a]
	if b == nil || b.dynamic != nil || b.ForEach != nil || b.Count != nil {
		return cty.NilVal, false
	}
	return d.nodeAttr(a, second)
}

// instanceAttr is ATTR of the instance KEY of the for_each block KIND.NAME
// (block), when the node depends on that instance: HCL gives the node
// only those of a block it indexes instance by instance.
func (d *direct) instanceAttr(block hcl.Traversal, key, attr string) (cty.Value, bool) {
	name, ok := attrStep(block, 1)
	if !ok || len(block) != 2 {
		return cty.NilVal, false
	}
	a := addr.Node{Kind: block.RootName(), Name: name}
	b := d.p.blockOf[a]
	if b == nil || b.dynamic != nil || b.ForEach == nil {
		return cty.NilVal, false
	}
	a.Key = addr.StringKey(key)
	if !slices.Contains(d.n.Deps, a) {
		return cty.NilVal, false
	}
	return d.nodeAttr(a, attr)
}

// nodeAttr is attribute attr of node a's value, which must be a known
// object.
func (d *direct) nodeAttr(a addr.Node, attr string) (cty.Value, bool) {
	if s, ok := d.vals.(NodeStrings); ok {
		if v, ok := s.NodeString(a, attr); ok {
			return v, true
		}
	}
	v := d.p.valueOf(a, d.vals)
	if !v.IsKnown() || v.IsNull() || v.IsMarked() || !v.Type().IsObjectType() || !v.Type().HasAttribute(attr) {
		return cty.NilVal, false
	}
	return v.GetAttr(attr), true
}

// directDiffers is an error when the direct evaluation of n differs from
// HCL's (ev, diags), for KILN_PLAN_VERIFY=1.
func directDiffers(n *Node, direct, ev *Evaluated, diags hcl.Diagnostics) hcl.Diagnostics {
	var why string
	switch {
	case diags.HasErrors():
		why = "HCL fails: " + diags.Error()
	case !direct.Config.RawEquals(ev.Config):
		why = fmt.Sprintf("the configuration is %#v directly and %#v by HCL", direct.Config, ev.Config)
	case !slices.Equal(direct.Inputs, ev.Inputs):
		why = fmt.Sprintf("inputs are %q directly and %q by HCL", direct.Inputs, ev.Inputs)
	case len(ev.EnvRead) > 0 || len(ev.FilesRead) > 0 || len(ev.Extensions) > 0:
		why = "HCL's evaluation read the environment or files, or set env_prepend or env_append"
	default:
		return nil
	}
	return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "KILN_PLAN_VERIFY: the direct evaluation of " + n.Addr.String() + " differs from HCL's", Detail: why + ".", Subject: n.DeclRange.Ptr()}}
}
