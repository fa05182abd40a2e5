package metrics

import (
	"bytes"
	"encoding/json"
	"math"
)

var litTrue, litFalse, litNull = []byte("true"), []byte("false"), []byte("null")

// maxDepth bounds the nesting of JSON objects read.
const maxDepth = 32

// jsonl parses a line holding one JSON object (after an optional prefix):
// its numbers and booleans, nested objects flattened to "outer/inner" keys,
// and the step from the key Spec.Step. Strings, nulls and arrays are left
// out. A line that is not exactly one object, or has no whole step, is not
// a sample.
func (p *Parser) jsonl(b []byte) {
	i := bytes.IndexByte(b, '{')
	if i < 0 {
		return
	}
	b = bytes.TrimRight(b[i:], " \t")
	if len(b) < 2 || b[len(b)-1] != '}' {
		return
	}
	p.sample.Values = p.sample.Values[:0]
	p.path = p.path[:0]
	s := jsonScanner{b: b}
	if !p.object(&s, 0) || s.pos != len(b) {
		p.sample.Values = p.sample.Values[:0]
		return
	}
	p.sample.Step = -1
	vals := p.sample.Values[:0]
	for _, v := range p.sample.Values {
		if v.Key == p.spec.Step {
			if v.Value >= 0 && v.Value == math.Trunc(v.Value) && v.Value < 1<<53 {
				p.sample.Step = int64(v.Value)
			}
			continue
		}
		vals = append(vals, v)
	}
	p.sample.Values = vals
	if p.sample.Step < 0 {
		p.sample.Values = p.sample.Values[:0]
		return
	}
	p.send()
}

type jsonScanner struct {
	b   []byte
	pos int
}

func (s *jsonScanner) ws() {
	for s.pos < len(s.b) {
		switch s.b[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

func (s *jsonScanner) peek() byte {
	if s.pos < len(s.b) {
		return s.b[s.pos]
	}
	return 0
}

// object reads an object at s.pos, adding its values under p.path.
func (p *Parser) object(s *jsonScanner, depth int) bool {
	if depth > maxDepth || s.peek() != '{' {
		return false
	}
	s.pos++
	s.ws()
	if s.peek() == '}' {
		s.pos++
		return true
	}
	base := len(p.path)
	for {
		s.ws()
		key, ok := s.str()
		if !ok {
			return false
		}
		s.ws()
		if s.peek() != ':' {
			return false
		}
		s.pos++
		s.ws()
		p.path = append(p.path[:base], key...)
		if !p.value(s, depth) {
			return false
		}
		p.path = p.path[:base]
		s.ws()
		switch s.peek() {
		case ',':
			s.pos++
		case '}':
			s.pos++
			return true
		default:
			return false
		}
	}
}

// value reads one value whose key is p.path.
func (p *Parser) value(s *jsonScanner, depth int) bool {
	switch c := s.peek(); {
	case c == '{':
		p.path = append(p.path, '/')
		return p.object(s, depth+1)
	case c == '[':
		return s.skipArray(depth + 1)
	case c == '"':
		_, ok := s.str()
		return ok
	case bytes.HasPrefix(s.b[s.pos:], litTrue):
		s.pos += len(litTrue)
		p.add(p.path, 1)
		return true
	case bytes.HasPrefix(s.b[s.pos:], litFalse):
		s.pos += len(litFalse)
		p.add(p.path, 0)
		return true
	case bytes.HasPrefix(s.b[s.pos:], litNull):
		s.pos += len(litNull)
		return true
	// NaN and Infinity are not JSON, but Python's json.dumps writes them.
	case c == '-' || c >= '0' && c <= '9' || c == 'N' || c == 'I':
		start := s.pos
		for s.pos < len(s.b) && numberByte(s.b[s.pos]) {
			s.pos++
		}
		tok := s.b[start:s.pos]
		switch string(tok) {
		case "NaN":
			p.add(p.path, math.NaN())
			return true
		case "Infinity":
			p.add(p.path, math.Inf(1))
			return true
		case "-Infinity":
			p.add(p.path, math.Inf(-1))
			return true
		}
		v, ok := parseFloat(tok)
		if !ok {
			return false
		}
		p.add(p.path, v)
		return true
	}
	return false
}

func numberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' ||
		c == 'N' || c == 'a' || c == 'I' || c == 'n' || c == 'f' || c == 'i' || c == 't' || c == 'y'
}

// str reads a string and returns its content, unescaped.
func (s *jsonScanner) str() ([]byte, bool) {
	if s.peek() != '"' {
		return nil, false
	}
	start := s.pos
	rest := s.b[start+1:]
	end := bytes.IndexByte(rest, '"')
	if end < 0 {
		return nil, false
	}
	if bytes.IndexByte(rest[:end], '\\') < 0 { // no escapes: the common case
		s.pos = start + 1 + end + 1
		return rest[:end], true
	}
	for i := 0; i < len(rest); i++ {
		switch rest[i] {
		case '\\':
			i++
		case '"':
			s.pos = start + 1 + i + 1
			var out string
			if json.Unmarshal(s.b[start:s.pos], &out) != nil {
				return nil, false
			}
			return []byte(out), true
		}
	}
	return nil, false
}

// skipArray skips an array and everything in it.
func (s *jsonScanner) skipArray(depth int) bool {
	if depth > maxDepth {
		return false
	}
	s.pos++ // [
	for s.pos < len(s.b) {
		switch s.b[s.pos] {
		case '"':
			if _, ok := s.str(); !ok {
				return false
			}
			continue
		case '[':
			if !s.skipArray(depth + 1) {
				return false
			}
			continue
		case ']':
			s.pos++
			return true
		}
		s.pos++
	}
	return false
}
