package state

import (
	"encoding/json"
	"errors"

	"github.com/kilnbuild/kiln/engine/hash"
)

// Lines are a record's key lines. They are stored as a JSON array with one
// array per line, [label, subject, value] or [label, subject, value, note]
// (state format 4); an array of line texts (format 3 and earlier) is read
// too (legacy.go). Decoding is written by hand because it is most of what a
// state file holds: the generic decoder took 1.7 times as long.
type Lines []hash.Line

// MarshalJSON writes the lines as arrays of their fields.
func (ls Lines) MarshalJSON() ([]byte, error) {
	if ls == nil {
		return []byte("null"), nil
	}
	rows := make([][]string, len(ls))
	for i, l := range ls {
		rows[i] = []string{l.Label, l.Subject, l.Value}
		if l.Note != "" {
			rows[i] = append(rows[i], l.Note)
		}
	}
	return json.Marshal(rows)
}

var errLines = errors.New("key lines: want an array of [label, subject, value, note?] arrays")

// UnmarshalJSON reads the lines of any state format.
func (ls *Lines) UnmarshalJSON(b []byte) error {
	s := &scan{b: b, text: string(b)}
	if s.literal("null") {
		*ls = nil
		return nil
	}
	if !s.next('[') {
		return errLines
	}
	out := Lines{}
	for first := true; !s.next(']'); first = false {
		if !first && !s.next(',') {
			return errLines
		}
		if s.peek() == '"' { // a line's text: format 3 and earlier
			text, err := s.str()
			if err != nil {
				return err
			}
			out = append(out, legacyLine(text))
			continue
		}
		l, err := s.line()
		if err != nil {
			return err
		}
		out = append(out, l)
	}
	if s.skip(); s.i != len(s.b) {
		return errLines
	}
	*ls = out
	return nil
}

// scan reads the JSON of Lines, which encoding/json has checked is valid
// JSON before handing it over. The strings it returns share text, one
// allocation for all the lines of a record.
type scan struct {
	b    []byte
	text string // b
	i    int
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
	if len(s.b)-s.i >= len(w) && string(s.b[s.i:s.i+len(w)]) == w {
		s.i += len(w)
		return true
	}
	return false
}

// str reads a JSON string; one with escapes goes to encoding/json.
func (s *scan) str() (string, error) {
	if !s.next('"') {
		return "", errLines
	}
	start, escaped := s.i, false
	for s.i < len(s.b) && s.b[s.i] != '"' {
		if s.b[s.i] == '\\' {
			escaped = true
			s.i++
		}
		s.i++
	}
	if s.i >= len(s.b) {
		return "", errLines
	}
	s.i++
	if !escaped {
		return s.text[start : s.i-1], nil
	}
	var v string
	err := json.Unmarshal(s.b[start-1:s.i], &v)
	return v, err
}

// line reads [label, subject, value] or [label, subject, value, note].
func (s *scan) line() (hash.Line, error) {
	var f [4]string
	if !s.next('[') {
		return hash.Line{}, errLines
	}
	n := 0
	for ; !s.next(']'); n++ {
		if n == len(f) || n > 0 && !s.next(',') {
			return hash.Line{}, errLines
		}
		v, err := s.str()
		if err != nil {
			return hash.Line{}, err
		}
		f[n] = v
	}
	if n < 3 {
		return hash.Line{}, errLines
	}
	return hash.Line{Label: f[0], Subject: f[1], Value: f[2], Note: f[3]}, nil
}
