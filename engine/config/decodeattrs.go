package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/customdecode"
	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// specAttr is one attribute of a spec made of attributes alone, as
// decodeAttrs reads it.
type specAttr struct {
	name string
	spec *hcldec.AttrSpec
	def  cty.Value // the literal default; cty.NilVal for none
	null cty.Value // the value when the attribute is not set
}

// attrDecoding is how decodeAttrs reads the attributes of spec: sorted by
// name; nil when it cannot (an attribute that is not plain, a meta-argument's
// name, a type that decodes its own expressions).
func attrDecoding(spec hcldec.ObjectSpec) []specAttr {
	var out []specAttr
	for name, s := range spec {
		a := specAttr{name: name, def: cty.NilVal}
		if d, isDefault := s.(*hcldec.DefaultSpec); isDefault {
			lit, literal := d.Default.(*hcldec.LiteralSpec)
			if !literal {
				return nil
			}
			a.def, s = lit.Value, d.Primary
		}
		attr, isAttr := s.(*hcldec.AttrSpec)
		if !isAttr || attr.Name != name || slices.Contains(metaArgs, name) || customdecode.CustomExpressionDecoderForType(attr.Type) != nil {
			return nil
		}
		a.spec, a.null = attr, cty.NullVal(attr.Type.WithoutOptionalAttributesDeep())
		out = append(out, a)
	}
	slices.SortFunc(out, func(x, y specAttr) int { return strings.Compare(x.name, y.name) })
	return out
}

// decode is hcldec.Decode(body, s.spec, ctx).
func (s *kindSpec) decode(body hcl.Body, ctx *hcl.EvalContext) (cty.Value, hcl.Diagnostics) {
	if syn, native := body.(*hclsyntax.Body); native {
		eval := func(a *hclsyntax.Attribute, spec *hcldec.AttrSpec) (cty.Value, hcl.Diagnostics, bool) {
			v, diags := decodeAttr(a, spec, ctx)
			return v, diags, true
		}
		if v, diags, ok := decodeAttrs(syn, s.decoding, eval); ok {
			return v, diags
		}
	}
	return hcldec.Decode(body, s.spec, ctx)
}

// attrEval is one attribute's decoding (decodeAttr); ok false gives up the
// body's.
type attrEval func(a *hclsyntax.Attribute, spec *hcldec.AttrSpec) (v cty.Value, diags hcl.Diagnostics, ok bool)

// decodeAttrs decodes a body whose content is what attrs expects, as
// hcldec.Decode does, value for value and diagnostic for diagnostic, with
// neither the schema hcldec makes anew for every body nor the content it
// copies every attribute into: a node of a generated pipeline is decoded
// in about half the allocations. ok is false for anything else: a body
// with blocks, an attribute attrs does not name or a required one missing
// (hcldec.Decode reports them), or an attribute eval gives up on. The
// body's meta-arguments are hidden (Block.Body): they are not the kind's,
// and are passed over.
func decodeAttrs(syn *hclsyntax.Body, attrs []specAttr, eval attrEval) (v cty.Value, diags hcl.Diagnostics, ok bool) {
	if attrs == nil || len(syn.Blocks) > 0 {
		return cty.NilVal, nil, false
	}
	for name := range syn.Attributes {
		_, found := slices.BinarySearchFunc(attrs, name, func(a specAttr, name string) int { return strings.Compare(a.name, name) })
		if !found && !slices.Contains(metaArgs, name) {
			return cty.NilVal, nil, false
		}
	}
	vals := make(map[string]cty.Value, len(attrs))
	for _, a := range attrs {
		attr, set := syn.Attributes[a.name]
		if !set && a.spec.Required {
			return cty.NilVal, nil, false
		}
		val := a.null
		if set {
			var d hcl.Diagnostics
			if val, d, ok = eval(attr, a.spec); !ok {
				return cty.NilVal, nil, false
			}
			diags = append(diags, d...)
		}
		if val.IsNull() && a.def != cty.NilVal {
			val = a.def
		}
		vals[a.name] = val
	}
	return cty.ObjectVal(vals), diags, true
}

// decodeAttr is an hcldec.AttrSpec's decoding of attr.
func decodeAttr(attr *hclsyntax.Attribute, spec *hcldec.AttrSpec, ctx *hcl.EvalContext) (cty.Value, hcl.Diagnostics) {
	val, diags := attr.Expr.Value(ctx)
	conv, err := convert.Convert(val, spec.Type)
	if err != nil {
		diags = append(diags, &hcl.Diagnostic{
			Severity:    hcl.DiagError,
			Summary:     "Incorrect attribute value type",
			Detail:      fmt.Sprintf("Inappropriate value for attribute %q: %s.", spec.Name, err.Error()),
			Subject:     attr.Expr.Range().Ptr(),
			Context:     hcl.RangeBetween(attr.NameRange, attr.Expr.Range()).Ptr(),
			Expression:  attr.Expr,
			EvalContext: ctx,
		})
		return cty.UnknownVal(spec.Type.WithoutOptionalAttributesDeep()), diags
	}
	return conv, diags
}
