package config

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// template reads a quoted template on one line: literal text (no escape,
// no "$$" or "%"-sequence) and interpolations of plain references,
// ${a.b.c}, as the HCL parser builds them: the literal runs melded, a lone
// interpolation unwrapped.
func (p *plainParser) template() (hclsyntax.Expression, bool) {
	if p.peek(p.i) != '"' {
		return nil, false
	}
	open := p.pos()
	p.i++
	parts := make([]hclsyntax.Expression, 0, maxParts(p.src[p.i:]))
	lit, litFrom := -1, hcl.Pos{}
	flush := func() {
		if lit >= 0 {
			parts = append(parts, &hclsyntax.LiteralValueExpr{
				Val:      cty.StringVal(string(p.src[lit:p.i])),
				SrcRange: p.rng(litFrom, p.pos()),
			})
			lit = -1
		}
	}
	interps := 0
	for {
		c := p.peek(p.i)
		switch {
		case c == '"':
			flush()
			end := p.pos()
			p.i++
			return p.templateExpr(parts, interps, open, end), true
		case c == '$' && p.peek(p.i+1) == '{':
			flush()
			e, ok := p.interpolation()
			if !ok {
				return nil, false
			}
			parts = append(parts, e)
			interps++
		case !plainByte(c) || c == '\\' || c == '$' && p.peek(p.i+1) == '$' || c == '%' && (p.peek(p.i+1) == '{' || p.peek(p.i+1) == '%'):
			return nil, false
		default:
			if lit < 0 {
				lit, litFrom = p.i, p.pos()
			}
			p.i++
		}
	}
}

// templateExpr is the expression of a template's parts, open being its
// opening quote and end its closing one.
func (p *plainParser) templateExpr(parts []hclsyntax.Expression, interps int, open, end hcl.Pos) hclsyntax.Expression {
	after := hcl.Pos{Line: end.Line, Column: end.Column + 1, Byte: end.Byte + 1}
	rng := p.rng(open, after)
	if len(parts) == 0 {
		// The parser's empty string is just after the closing quote.
		parts = []hclsyntax.Expression{&hclsyntax.LiteralValueExpr{Val: cty.StringVal(""), SrcRange: p.rng(after, after)}}
	}
	if len(parts) == 1 && interps == 1 {
		return &hclsyntax.TemplateWrapExpr{Wrapped: parts[0], SrcRange: rng}
	}
	return &hclsyntax.TemplateExpr{Parts: parts, SrcRange: rng}
}

// interpolation reads ${name.attr...}, a reference with no spaces in it.
func (p *plainParser) interpolation() (hclsyntax.Expression, bool) {
	p.i += 2
	name, rootRange, ok := p.ident()
	if !ok || name == "true" || name == "false" || name == "null" || name == "for" {
		return nil, false
	}
	t := make(hcl.Traversal, 1, 1+dotsBefore(p.src[p.i:], '}'))
	t[0] = hcl.TraverseRoot{Name: name, SrcRange: rootRange}
	for p.peek(p.i) == '.' {
		dot := p.pos()
		p.i++
		attr, r, ok := p.ident()
		if !ok {
			return nil, false
		}
		t = append(t, hcl.TraverseAttr{Name: attr, SrcRange: hcl.RangeBetween(p.rng(dot, dot), r)})
	}
	if p.peek(p.i) != '}' {
		return nil, false
	}
	p.i++
	return &hclsyntax.ScopeTraversalExpr{Traversal: t, SrcRange: t.SourceRange()}, true
}

// maxParts is the most parts the template that src starts inside can have:
// a literal run before, between and after each interpolation, read up to
// the end of its line.
func maxParts(src []byte) int {
	n := 1
	for i := 0; i+1 < len(src) && src[i] != '\n'; i++ {
		if src[i] == '$' && src[i+1] == '{' {
			n += 2
		}
	}
	return n
}

// dotsBefore counts the dots in src before the first end byte or line end.
func dotsBefore(src []byte, end byte) int {
	n := 0
	for _, c := range src {
		if c == end || c == '\n' {
			break
		}
		if c == '.' {
			n++
		}
	}
	return n
}
