package config

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/kilnbuild/kiln/engine/human"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

func decodeVariable(b *hcl.Block) (*Variable, hcl.Diagnostics) {
	content, diags := b.Body.Content(VariableBlock.BodySchema())
	v := &Variable{Name: b.Labels[0], Type: cty.DynamicPseudoType, DeclRange: b.DefRange, Default: cty.NilVal}
	if !hclIdent(v.Name) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid variable name", Detail: fmt.Sprintf("%q is not a valid name.", v.Name), Subject: b.LabelRanges[0].Ptr()})
	}
	if a, ok := content.Attributes["type"]; ok {
		ty, d := typeexpr.TypeConstraint(a.Expr)
		diags = append(diags, d...)
		v.Type = ty
	}
	if a, ok := content.Attributes["description"]; ok {
		diags = append(diags, decodeStatic(a, &v.Description)...)
	}
	if a, ok := content.Attributes["sensitive"]; ok {
		diags = append(diags, decodeStatic(a, &v.Sensitive)...)
	}
	if a, ok := content.Attributes["default"]; ok {
		val, d := a.Expr.Value(nil)
		diags = append(diags, d...)
		if !d.HasErrors() {
			conv, err := convert.Convert(val, v.Type)
			if err != nil {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid default value for variable",
					Detail: fmt.Sprintf("The default does not match the variable's type: %s.", err), Subject: a.Expr.Range().Ptr()})
			} else {
				v.Default = conv
			}
		}
	}
	for _, vb := range content.Blocks {
		vc, d := vb.Body.Content(VariableBlock.Nested("validation").BodySchema())
		diags = append(diags, d...)
		if !d.HasErrors() {
			v.validations = append(v.validations, &validation{condition: vc.Attributes["condition"].Expr, message: vc.Attributes["error_message"].Expr, rng: vb.DefRange})
		}
	}
	return v, diags
}

// resolveVariables sets every variable's value: default, then KILN_VAR_name,
// then -var-file, then -var, the later winning as in Terraform. Settings
// are applied in that order onto the value below them (see setting.apply):
// an object given for an object variable replaces only the attributes it
// names, and NAME.ATTR sets one attribute.
func (p *Pipeline) resolveVariables(o Options) hcl.Diagnostics {
	settings, diags := p.variableSettings(o)
	vals := map[string]cty.Value{}
	for _, name := range slices.Sorted(maps.Keys(p.Variables)) {
		v := p.Variables[name]
		val := v.Default
		failed := false
		for _, s := range settings[name] {
			got, d := s.apply(val, v.Type)
			diags = append(diags, d...)
			if d.HasErrors() {
				failed = true
				break
			}
			val = got
		}
		if failed {
			continue
		}
		if val != cty.NilVal {
			conv, err := convert.Convert(val, v.Type)
			if err != nil {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid value for variable",
					Detail: badValue(v, settings[name], err), Subject: v.DeclRange.Ptr()})
				continue
			}
			val = conv
		}
		if val == cty.NilVal {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "No value for required variable",
				Detail:  fmt.Sprintf("var.%s has no default. Set it with -var %s=VALUE, a -var-file, or the environment variable KILN_VAR_%s.", name, name, name),
				Subject: v.DeclRange.Ptr()})
			continue
		}
		if v.Sensitive {
			val = val.Mark(SensitiveMark)
		}
		v.Value = val
		vals[name] = val
	}
	p.vars = cty.ObjectVal(vals)
	if diags.HasErrors() {
		return diags
	}
	for _, name := range slices.Sorted(maps.Keys(p.Variables)) {
		diags = append(diags, p.validate(p.Variables[name])...)
	}
	return diags
}

// badValue says which variable got a value of the wrong type, of which
// type it is declared, what was given (unless it is sensitive) and where.
func badValue(v *Variable, settings []setting, err error) string {
	ty := typeexpr.TypeString(v.Type)
	if len(settings) == 0 {
		return fmt.Sprintf("var.%s: %s (the variable is declared with type %s).", v.Name, err, ty)
	}
	last := settings[len(settings)-1]
	switch {
	case last.given == "":
		return fmt.Sprintf("var.%s is declared with type %s, but its value %s does not fit: %s.", v.Name, ty, last.origin, err)
	case v.Sensitive:
		return fmt.Sprintf("var.%s is declared with type %s, but the value %s (not shown: the variable is sensitive) does not fit: %s.", v.Name, ty, last.origin, err)
	}
	return fmt.Sprintf("var.%s is declared with type %s, but %s was %s: %s.", v.Name, ty, strconv.Quote(last.given), last.origin, err)
}

// rawValue parses a value given on the command line or in the environment:
// as a literal string for string variables, as an HCL expression otherwise.
func rawValue(s, origin string) func(ty cty.Type) (cty.Value, hcl.Diagnostics) {
	return func(ty cty.Type) (cty.Value, hcl.Diagnostics) {
		if ty == cty.String || ty == cty.DynamicPseudoType && !looksStructured(s) {
			return cty.StringVal(s), nil
		}
		if diags := CheckNesting([]byte(s), origin, false); diags.HasErrors() {
			return cty.NilVal, diags
		}
		expr, diags := hclsyntax.ParseExpression([]byte(s), origin, hcl.InitialPos)
		if diags.HasErrors() {
			if ty.IsPrimitiveType() {
				// Not an expression at all ("1e", "a b"): the type check
				// then says what was expected, and what was given.
				return cty.StringVal(s), nil
			}
			return cty.NilVal, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid value for variable",
				Detail: fmt.Sprintf("The value given in %s is not a value of type %s: %s. Write it in HCL syntax, e.g. [\"a\", \"b\"] or {k = 1}.", origin, typeexpr.TypeString(ty), diags.Errs()[0])}}
		}
		if _, bare := expr.(*hclsyntax.ScopeTraversalExpr); bare {
			// A bare word such as "many" for a number: the type check
			// then says what was expected.
			return cty.StringVal(s), nil
		}
		return expr.Value(nil)
	}
}

func looksStructured(s string) bool {
	s = strings.TrimSpace(s)
	return strings.HasPrefix(s, "[") || strings.HasPrefix(s, "{")
}

func (p *Pipeline) undeclared(name string, subject *hcl.Range, where string) *hcl.Diagnostic {
	detail := fmt.Sprintf("A value for var.%s is %s, but the pipeline declares no such variable.", name, where)
	if s := human.Closest(name, slices.Sorted(maps.Keys(p.Variables))); s != "" {
		detail += fmt.Sprintf(" Did you mean %q?", s)
	}
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Undeclared variable", Detail: detail, Subject: subject}
}

func (p *Pipeline) validate(v *Variable) hcl.Diagnostics {
	var diags hcl.Diagnostics
	ctx := &hcl.EvalContext{Variables: map[string]cty.Value{"var": p.vars}, Functions: p.functions(nil)}
	for _, val := range v.validations {
		ok, d := val.condition.Value(ctx)
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		if ok.Type() != cty.Bool || ok.IsNull() || !ok.IsKnown() {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid validation condition", Detail: "The condition must be true or false.", Subject: val.condition.Range().Ptr()})
			continue
		}
		if ok.True() {
			continue
		}
		msg, d := val.message.Value(ctx)
		text := "invalid value"
		if !d.HasErrors() && msg.Type() == cty.String && msg.IsKnown() && !msg.IsNull() {
			text = msg.AsString()
		}
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid value for variable",
			Detail: fmt.Sprintf("var.%s: %s", v.Name, text), Subject: val.rng.Ptr()})
	}
	return diags
}
