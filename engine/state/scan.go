package state

import (
	"encoding/json"
	"errors"
)

// scan reads the JSON kiln writes most of, a record's lines and fields,
// faster than encoding/json (decode.go, lines.go). The strings it returns
// share text, one allocation for all those of one value; a string with
// escapes goes to encoding/json. It reads what kiln writes: whatever it
// does not expect it reports, and the caller hands the value to
// encoding/json, which decides and says what is wrong.
type scan struct {
	b    []byte
	text string // b
	i    int
}

var errScan = errors.New("not the JSON kiln writes")

func newScan(b []byte) *scan { return &scan{b: b, text: string(b)} }

func (s *scan) skip() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

func (s *scan) peek() byte {
	if s.skip(); s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// next consumes c if it comes next.
func (s *scan) next(c byte) bool {
	if s.peek() == c {
		s.i++
		return true
	}
	return false
}

func (s *scan) literal(w string) bool {
	s.skip()
	if len(s.b)-s.i >= len(w) && s.text[s.i:s.i+len(w)] == w {
		s.i += len(w)
		return true
	}
	return false
}

// str reads a JSON string.
func (s *scan) str() (string, error) {
	start, end, escaped, err := s.strBounds()
	if err != nil {
		return "", err
	}
	if !escaped {
		return s.text[start+1 : end-1], nil
	}
	var v string
	err = json.Unmarshal(s.b[start:end], &v)
	return v, err
}

// strBounds finds the string that comes next, quotes included.
func (s *scan) strBounds() (start, end int, escaped bool, err error) {
	if !s.next('"') {
		return 0, 0, false, errScan
	}
	start = s.i - 1
	for s.i < len(s.b) && s.b[s.i] != '"' {
		if s.b[s.i] == '\\' {
			escaped = true
			s.i++
		} else if s.b[s.i] < 0x20 {
			return 0, 0, false, errScan
		}
		s.i++
	}
	if s.i >= len(s.b) {
		return 0, 0, false, errScan
	}
	s.i++
	return start, s.i, escaped, nil
}

// value skips the JSON value that comes next and returns its bytes.
func (s *scan) value() ([]byte, error) {
	s.skip()
	start, depth := s.i, 0
	for s.i < len(s.b) {
		switch c := s.b[s.i]; c {
		case '"':
			if _, _, _, err := s.strBounds(); err != nil {
				return nil, err
			}
			if depth == 0 {
				return s.b[start:s.i], nil
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return nil, errScan
			}
			depth--
		case ',', ':':
			if depth == 0 {
				return nil, errScan
			}
		case ' ', '\t', '\n', '\r':
		default:
			if depth == 0 { // a number or a literal: up to what ends it
				for s.i < len(s.b) && !isEnd(s.b[s.i]) {
					s.i++
				}
				return s.b[start:s.i], nil
			}
		}
		s.i++
		if depth == 0 {
			return s.b[start:s.i], nil
		}
	}
	return nil, errScan
}

func isEnd(c byte) bool {
	return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// number reads the digits of an integer.
func (s *scan) number() (string, error) {
	s.skip()
	start := s.i
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	if s.i == start || s.i < len(s.b) && !isEnd(s.b[s.i]) {
		return "", errScan
	}
	return s.text[start:s.i], nil
}

// end reports whether nothing but space is left.
func (s *scan) end() bool {
	s.skip()
	return s.i == len(s.b)
}
