package config

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// A generated pipeline is mostly plain blocks: a type, quoted labels,
// arguments that are quoted strings (interpolating references such as
// ${exec.a.out}) or lists of them, one to a line. The HCL parser spends
// about 100 bytes of tokens on every 3 bytes of such a file before it
// builds the syntax tree; parsePlain builds the same tree straight from the
// bytes. It understands only that plain form, written on ASCII lines, and
// gives up (false) at the first byte of anything else — a comment inside a
// block, a heredoc, a number, an escape, a function call, a tab or a
// carriage return, an argument set twice — so that the HCL parser parses
// what it was given: what the user sees, the syntax tree and every
// diagnostic, stays the parser's (plainparse_test.go holds the two to the
// same tree).

// plainParser reads src, which starts at start in its file.
type plainParser struct {
	src       []byte
	filename  string
	base      int // the byte offset of src[0] in the file
	i         int // the next byte
	line      int
	lineStart int // index of the line's first byte (negative on a first line that starts after column 1)
}

// parsePlain parses src, the piece of a file starting at start, when it is
// written in the plain form; false when it is not.
func parsePlain(src []byte, filename string, start hcl.Pos) (*hclsyntax.Body, bool) {
	p := &plainParser{src: src, filename: filename, base: start.Byte, line: start.Line, lineStart: 1 - start.Column}
	body := &hclsyntax.Body{Attributes: hclsyntax.Attributes{}, Blocks: hclsyntax.Blocks{}}
	from := p.pos()
	for {
		p.skipBlank()
		if p.i == len(p.src) {
			break
		}
		switch c := p.src[p.i]; {
		case c == '#':
			if !p.comment() {
				return nil, false
			}
		case isLetter(c):
			b, ok := p.block()
			if !ok {
				return nil, false
			}
			body.Blocks = append(body.Blocks, b)
		default:
			return nil, false
		}
	}
	end := p.pos()
	body.SrcRange = p.rng(from, end)
	body.EndRange = p.rng(end, end)
	return body, true
}

func (p *plainParser) pos() hcl.Pos {
	return hcl.Pos{Line: p.line, Column: p.i - p.lineStart + 1, Byte: p.base + p.i}
}

func (p *plainParser) rng(from, to hcl.Pos) hcl.Range {
	return hcl.Range{Filename: p.filename, Start: from, End: to}
}

// peek is the byte at i, or 0 past the end.
func (p *plainParser) peek(i int) byte {
	if i < len(p.src) {
		return p.src[i]
	}
	return 0
}

// skipBlank moves past spaces and newlines.
func (p *plainParser) skipBlank() {
	for p.i < len(p.src) {
		switch p.src[p.i] {
		case ' ':
		case '\n':
			p.line, p.lineStart = p.line+1, p.i+1
		default:
			return
		}
		p.i++
	}
}

func (p *plainParser) skipSpaces() {
	for p.i < len(p.src) && p.src[p.i] == ' ' {
		p.i++
	}
}

// newline moves past the newline ending a line (spaces before it).
func (p *plainParser) newline() bool {
	p.skipSpaces()
	if p.peek(p.i) != '\n' {
		return false
	}
	p.i++
	p.line, p.lineStart = p.line+1, p.i
	return true
}

// comment moves past a line comment "# ..." of plain bytes.
func (p *plainParser) comment() bool {
	for p.i < len(p.src) && p.src[p.i] != '\n' {
		if !plainByte(p.src[p.i]) {
			return false
		}
		p.i++
	}
	return p.newline()
}

// plainByte is a printable ASCII byte.
func plainByte(c byte) bool { return c >= ' ' && c <= '~' }

// ident reads a name: a letter, then letters, digits, _ and -.
func (p *plainParser) ident() (string, hcl.Range, bool) {
	from := p.pos()
	start := p.i
	if !isLetter(p.peek(p.i)) {
		return "", hcl.Range{}, false
	}
	for p.i < len(p.src) {
		c := p.src[p.i]
		if !isLetter(c) && c != '_' && c != '-' && (c < '0' || c > '9') {
			break
		}
		p.i++
	}
	return string(p.src[start:p.i]), p.rng(from, p.pos()), true
}

// block reads a block from its type to the newline after its "}".
func (p *plainParser) block() (*hclsyntax.Block, bool) {
	b := &hclsyntax.Block{}
	var ok bool
	if b.Type, b.TypeRange, ok = p.ident(); !ok {
		return nil, false
	}
	for {
		p.skipSpaces()
		if p.peek(p.i) != '"' {
			break
		}
		label, r, ok := p.label()
		if !ok {
			return nil, false
		}
		b.Labels = append(b.Labels, label)
		b.LabelRanges = append(b.LabelRanges, r)
	}
	if p.peek(p.i) != '{' {
		return nil, false
	}
	open := p.pos()
	p.i++
	b.OpenBraceRange = p.rng(open, p.pos())
	if !p.newline() {
		return nil, false
	}
	body, ok := p.blockBody()
	if !ok {
		return nil, false
	}
	b.Body = body
	b.CloseBraceRange = body.EndRange
	body.EndRange = p.rng(b.CloseBraceRange.End, b.CloseBraceRange.End)
	body.SrcRange = hcl.RangeBetween(b.OpenBraceRange, b.CloseBraceRange)
	return b, p.newline()
}

// label reads a quoted label of plain bytes, neither empty nor holding
// an escape or a template sequence.
func (p *plainParser) label() (string, hcl.Range, bool) {
	from := p.pos()
	p.i++
	start := p.i
	for p.i < len(p.src) && p.src[p.i] != '"' {
		if c := p.src[p.i]; !plainByte(c) || c == '\\' || c == '$' || c == '%' {
			return "", hcl.Range{}, false
		}
		p.i++
	}
	if p.i == len(p.src) || p.i == start {
		return "", hcl.Range{}, false
	}
	s := string(p.src[start:p.i])
	p.i++
	return s, p.rng(from, p.pos()), true
}

// blockBody reads a block's arguments and nested blocks, to its "}"
// (the body's EndRange, until block makes it the zero-length range after).
func (p *plainParser) blockBody() (*hclsyntax.Body, bool) {
	body := &hclsyntax.Body{Attributes: hclsyntax.Attributes{}, Blocks: hclsyntax.Blocks{}}
	for {
		p.skipBlank()
		c := p.peek(p.i)
		if c == '}' {
			from := p.pos()
			p.i++
			body.EndRange = p.rng(from, p.pos())
			return body, true
		}
		if !isLetter(c) {
			return nil, false
		}
		save, line, lineStart := p.i, p.line, p.lineStart
		name, nameRange, _ := p.ident()
		p.skipSpaces()
		if p.peek(p.i) != '=' {
			p.i, p.line, p.lineStart = save, line, lineStart
			b, ok := p.block()
			if !ok {
				return nil, false
			}
			body.Blocks = append(body.Blocks, b)
			continue
		}
		a, ok := p.attribute(name, nameRange)
		if !ok || body.Attributes[name] != nil {
			return nil, false
		}
		body.Attributes[name] = a
	}
}

// attribute reads "= value" and the newline after it.
func (p *plainParser) attribute(name string, nameRange hcl.Range) (*hclsyntax.Attribute, bool) {
	eq := p.pos()
	p.i++
	a := &hclsyntax.Attribute{Name: name, NameRange: nameRange, EqualsRange: p.rng(eq, p.pos())}
	p.skipSpaces()
	expr, ok := p.expr()
	if !ok {
		return nil, false
	}
	a.Expr = expr
	a.SrcRange = hcl.RangeBetween(nameRange, expr.Range())
	return a, p.newline()
}

// expr reads a quoted template or a list of them, on one line.
func (p *plainParser) expr() (hclsyntax.Expression, bool) {
	switch p.peek(p.i) {
	case '"':
		return p.template()
	case '[':
		return p.tuple()
	}
	return nil, false
}

// tuple reads ["a", "b"].
func (p *plainParser) tuple() (hclsyntax.Expression, bool) {
	from := p.pos()
	p.i++
	t := &hclsyntax.TupleConsExpr{OpenRange: p.rng(from, p.pos())}
	p.skipSpaces()
	for p.peek(p.i) != ']' {
		if len(t.Exprs) > 0 {
			if p.peek(p.i) != ',' {
				return nil, false
			}
			p.i++
			p.skipSpaces()
		}
		e, ok := p.template()
		if !ok {
			return nil, false
		}
		t.Exprs = append(t.Exprs, e)
		p.skipSpaces()
	}
	p.i++
	t.SrcRange = p.rng(from, p.pos())
	return t, true
}

// plainTree reports whether a syntax tree holds only what the plain form is
// made of — bodies, blocks, arguments, literals, templates, lists and
// references — so holds no function call and no index: a walk looking for
// those (instanceIndexes, knownCalls) need not visit it. It allocates
// nothing, where hclsyntax.VisitAll makes a closure per node.
func plainTree(n hclsyntax.Node) bool {
	switch n := n.(type) {
	case *hclsyntax.Body:
		for _, a := range n.Attributes {
			if !plainTree(a.Expr) {
				return false
			}
		}
		for _, b := range n.Blocks {
			if !plainTree(b.Body) {
				return false
			}
		}
		return true
	case *hclsyntax.TemplateExpr:
		for _, e := range n.Parts {
			if !plainTree(e) {
				return false
			}
		}
		return true
	case *hclsyntax.TupleConsExpr:
		for _, e := range n.Exprs {
			if !plainTree(e) {
				return false
			}
		}
		return true
	case *hclsyntax.TemplateWrapExpr:
		return plainTree(n.Wrapped)
	case *hclsyntax.ScopeTraversalExpr:
		for _, t := range n.Traversal[min(1, len(n.Traversal)):] {
			if _, ok := t.(hcl.TraverseAttr); !ok {
				return false // an index, even one folded into the traversal
			}
		}
		return true
	case *hclsyntax.LiteralValueExpr:
		return true
	}
	return false
}
