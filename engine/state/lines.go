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
	s := newScan(b)
	out, err := s.lines()
	if err != nil {
		return err
	}
	if !s.end() {
		return errLines
	}
	*ls = out
	return nil
}

// lines reads Lines, or null.
func (s *scan) lines() (Lines, error) {
	if s.literal("null") {
		return nil, nil
	}
	if !s.next('[') {
		return nil, errLines
	}
	// The lines gather in room on the stack, then go to one slice of
	// their number: a record has about fifteen.
	var room [32]hash.Line
	out := room[:0]
	for first := true; !s.next(']'); first = false {
		if !first && !s.next(',') {
			return nil, errLines
		}
		if s.peek() == '"' { // a line's text: format 3 and earlier
			text, err := s.str()
			if err != nil {
				return nil, err
			}
			out = append(out, legacyLine(text))
			continue
		}
		l, err := s.line()
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return append(Lines{}, out...), nil
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
