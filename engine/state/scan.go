package state

import (
	"encoding/json"
	"errors"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// scan reads the JSON kiln writes most of, a record's lines and fields,
// faster than encoding/json (decode.go, lines.go). The strings it returns
// share text: one copy for all those of one value (newScan), or the bytes
// it was given (newScanShared). Escapes are read here too, but for a
// surrogate pair, which goes to encoding/json. It reads what kiln writes:
// whatever it does not expect it reports, and the caller hands the value
// to encoding/json, which decides and says what is wrong.
type scan struct {
	b    []byte
	text string // b
	i    int
}

var errScan = errors.New("not the JSON kiln writes")

func newScan(b []byte) *scan { return &scan{b: b, text: string(b)} }

// newScanShared reads b without copying it: the strings it returns are b's
// own bytes, so b must not change while one of them lives. The records of
// a state file are read so, from the file's bytes, which nothing writes
// once read (decodeRecords).
func newScanShared(b []byte) *scan {
	return &scan{b: b, text: unsafe.String(unsafe.SliceData(b), len(b))}
}

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
	if v, ok := unescape(s.b[start+1 : end-1]); ok {
		return v, nil
	}
	var v string
	err = json.Unmarshal(s.b[start:end], &v)
	return v, err
}

// unescape reads the escapes of a JSON string: a quote, a backslash, a
// slash, the one-letter controls and \u of one UTF-16 unit (encoding/json
// writes < > & so, and commands hold them). It says no to a surrogate pair
// and to text that is not UTF-8, which encoding/json reads as it does.
func unescape(b []byte) (string, bool) {
	if !utf8.Valid(b) {
		return "", false
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		if i++; i == len(b) {
			return "", false
		}
		switch b[i] {
		case '"', '\\', '/':
			out = append(out, b[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(b[i+1:])
			if !ok || utf16.IsSurrogate(r) {
				return "", false
			}
			out = utf8.AppendRune(out, r)
			i += 4
		default:
			return "", false
		}
	}
	return string(out), true
}

// hex4 reads the four hex digits that begin b.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
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
