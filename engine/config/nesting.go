package config

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
)

// MaxNesting is how deep brackets, parentheses, braces and template
// interpolations may nest in a file kiln parses. The HCL parser recurses
// once per level, and 100,000 levels run it out of stack, which no
// recovery catches: the whole process dies. No real pipeline nests more
// than a few dozen deep.
const MaxNesting = 1000

// Scanning modes of nestingAt.
const (
	inCode     = iota // HCL expressions and bodies, JSON
	inString          // a quoted string: escapes, interpolations
	inTemplate        // heredoc or template file text: interpolations only
)

// Frames of nestingAt's stack: what a closing bracket returns to.
const (
	frameCode     = iota // ( [ { in code
	frameString          // ${ or %{ in a quoted string
	frameTemplate        // ${ or %{ in heredoc or template text
)

// special are, by mode, the bytes nestingAt stops at; it skips the rest.
var special = func() (t [3][256]bool) {
	for _, c := range []byte("#/\"<([{)]}") {
		t[inCode][c] = true
	}
	for _, c := range []byte("\\\"$%\n") {
		t[inString][c] = true
	}
	for _, c := range []byte("$%\n") {
		t[inTemplate][c] = true
	}
	return t
}()

// CheckNesting reports the place where src nests deeper than MaxNesting,
// before any parser recurses into it. It is a byte scan that knows HCL's
// comments, quoted strings, heredocs and interpolations, so brackets
// inside a string or a comment do not count; JSON reads the same way.
// template says src is template text (templatefile), not a config file.
func CheckNesting(src []byte, filename string, template bool) hcl.Diagnostics {
	at, ok := nestingAt(src, template)
	if ok {
		return nil
	}
	line := 1 + bytes.Count(src[:at], []byte{'\n'})
	lineStart := bytes.LastIndexByte(src[:at], '\n') + 1
	pos := hcl.Pos{Line: line, Column: 1 + utf8.RuneCount(src[lineStart:at]), Byte: at}
	end := pos
	end.Column++
	end.Byte++
	return hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  "Nested too deeply",
		Detail: fmt.Sprintf("Brackets, parentheses, braces and interpolations nest more than %d deep here; kiln reads no deeper, so that the parser cannot run out of stack. "+
			"Split the expression: a local value can hold a part of it.", MaxNesting),
		Subject: &hcl.Range{Filename: filename, Start: pos, End: end},
	}}
}

// nestingAt scans src and returns the offset of the opening that nests
// deeper than MaxNesting, or ok when none does. Unbalanced input is
// scanned on as well as it goes: the parser reports it.
func nestingAt(src []byte, template bool) (at int, ok bool) {
	sc := &nestingScan{src: src, mode: inCode, lineStart: true}
	if template {
		sc.mode = inTemplate
	}
	for i := 0; i < len(src); i++ {
		if !sc.lineStart || sc.mode != inTemplate {
			skip := &special[sc.mode]
			for i < len(src) && !skip[src[i]] {
				i++
			}
			if i == len(src) {
				break
			}
		}
		var deep bool
		switch sc.mode {
		case inCode:
			i, deep = sc.code(i)
		case inString:
			i, deep = sc.str(i)
		case inTemplate:
			i, deep = sc.template(i)
		}
		if deep {
			return i, false
		}
	}
	return 0, true
}

// nestingScan is nestingAt's state between two bytes it stops at.
type nestingScan struct {
	src       []byte
	mode      int
	stack     []byte
	markers   [][]byte // the end markers of the heredocs open, innermost last
	lineStart bool     // at the start of a line, in a heredoc
	// directives are the %{ if } and %{ for } not yet ended, which nest too.
	directives int
}

// push opens a frame at src[i]; true when that nests too deep.
func (sc *nestingScan) push(f byte, i int) (deep bool) {
	sc.stack = append(sc.stack, f)
	if sc.src[i] == '%' {
		sc.directives += directiveNesting(sc.src[i+2:])
	}
	return len(sc.stack)+sc.directives > MaxNesting
}

// code reads src[i] in code: comments, strings, heredocs and brackets. It
// returns where the scan goes on from (the byte before it).
func (sc *nestingScan) code(i int) (int, bool) {
	src := sc.src
	switch src[i] {
	case '#':
		i = skipLine(src, i)
	case '/':
		if i+1 < len(src) && src[i+1] == '/' {
			i = skipLine(src, i)
		} else if i+1 < len(src) && src[i+1] == '*' {
			if end := bytes.Index(src[i+2:], []byte("*/")); end >= 0 {
				i += 2 + end + 1
			} else {
				i = len(src)
			}
		}
	case '"':
		sc.mode = inString
	case '<':
		if marker, next, ok := heredocStart(src, i); ok {
			sc.markers = append(sc.markers, marker)
			sc.mode, sc.lineStart, i = inTemplate, true, next-1
		}
	case '(', '[', '{':
		if sc.push(frameCode, i) {
			return i, true
		}
	case ')', ']', '}':
		if len(sc.stack) == 0 {
			return i, false
		}
		f := sc.stack[len(sc.stack)-1]
		sc.stack = sc.stack[:len(sc.stack)-1]
		switch f {
		case frameString:
			sc.mode = inString
		case frameTemplate:
			sc.mode, sc.lineStart = inTemplate, false
		}
	}
	return i, false
}

// str reads src[i] in a quoted string: escapes, its end and
// interpolations.
func (sc *nestingScan) str(i int) (int, bool) {
	switch sc.src[i] {
	case '\\':
		i++
	case '"', '\n':
		sc.mode = inCode
	case '$', '%':
		return sc.interpolate(i, frameString)
	}
	return i, false
}

// template reads src[i] in a heredoc or template: its end marker at the
// start of a line, and interpolations.
func (sc *nestingScan) template(i int) (int, bool) {
	src := sc.src
	if sc.lineStart && len(sc.markers) > 0 {
		end := bytes.IndexByte(src[i:], '\n')
		if end < 0 {
			end = len(src) - i
		}
		if bytes.Equal(bytes.TrimSpace(src[i:i+end]), sc.markers[len(sc.markers)-1]) {
			sc.markers = sc.markers[:len(sc.markers)-1]
			sc.mode = inCode
			return i + end - 1, false
		}
	}
	sc.lineStart = src[i] == '\n'
	if src[i] == '$' || src[i] == '%' {
		return sc.interpolate(i, frameTemplate)
	}
	return i, false
}

// interpolate reads the $ or % at src[i]: an interpolation or directive
// opens a frame of f and goes on in code.
func (sc *nestingScan) interpolate(i int, f byte) (int, bool) {
	open, skip := interpolation(sc.src, i)
	if open {
		if sc.push(f, i) {
			return i, true
		}
		sc.mode = inCode
	}
	return i + skip, false
}

// interpolation says what src[i] ($ or %) starts: an interpolation or
// directive (${, %{: open, skip the {), an escaped one ($${, %%{: skip
// past it), or nothing.
func interpolation(src []byte, i int) (open bool, skip int) {
	c := src[i]
	switch {
	case i+1 < len(src) && src[i+1] == '{':
		return true, 1
	case i+2 < len(src) && src[i+1] == c && src[i+2] == '{':
		return false, 2
	}
	return false, 0
}

// directiveNesting is what a template directive's text (after its %{)
// does to the nesting: if and for open a body (1), endif and endfor close
// one (-1), else and the rest neither.
func directiveNesting(d []byte) int {
	d = bytes.TrimLeft(d, "~ \t\r\n")
	word := d[:len(d)-len(bytes.TrimLeft(d, "abcdefghijklmnopqrstuvwxyz"))]
	switch string(word) {
	case "if", "for":
		return 1
	case "endif", "endfor":
		return -1
	}
	return 0
}

// skipLine returns the offset of the end of src[i]'s line.
func skipLine(src []byte, i int) int {
	if end := bytes.IndexByte(src[i:], '\n'); end >= 0 {
		return i + end
	}
	return len(src)
}

// heredocStart reads "<<MARKER" or "<<-MARKER" ending its line at src[i],
// and returns the marker and the offset of the heredoc's first line.
func heredocStart(src []byte, i int) (marker []byte, next int, ok bool) {
	if i+1 >= len(src) || src[i+1] != '<' {
		return nil, 0, false
	}
	j := i + 2
	if j < len(src) && src[j] == '-' {
		j++
	}
	k := j
	for k < len(src) && (src[k] == '_' || src[k] == '-' || src[k] >= 'a' && src[k] <= 'z' || src[k] >= 'A' && src[k] <= 'Z' || k > j && src[k] >= '0' && src[k] <= '9') {
		k++
	}
	if k == j {
		return nil, 0, false
	}
	marker = src[j:k]
	if k < len(src) && src[k] == '\r' {
		k++
	}
	if k < len(src) && src[k] != '\n' {
		return nil, 0, false
	}
	return marker, k + 1, true
}
