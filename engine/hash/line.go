package hash

import (
	"crypto/sha256"
	"strconv"
	"strings"
)

// Line is one line of a node's key, as kiln writes it and reads it back:
// Label says what kind of influence it is (attr, input, dep, env, ...),
// Subject what it is about (an attribute or variable name, a path, an
// upstream's number; "" for a label that has none), Value what it was, and
// Note, for people only, what the line stands for (the address of the
// upstream a dep line's digest belongs to). Lines are compared, rewritten
// and stored as these fields; Text renders one for hashing and Show for
// reading, and nothing parses a rendered line back (but the reader of an
// older kiln's state file, which stored the text: engine/state, legacy.go).
type Line struct {
	Label, Subject, Value, Note string
}

// Text is the line as its key hashes it: the label, the subject (a path
// with % and spaces percent-encoded) and the value, one physical line
// whatever they hold (see Key.Add). The note is not part of it.
func (l Line) Text() string { return string(l.appendText(nil)) }

func (l Line) appendText(b []byte) []byte {
	b = appendField(b, l.Label, true)
	b = append(b, ' ')
	if l.Subject == "" {
		return appendField(b, l.Value, false)
	}
	s := l.Subject
	if pathSubject(l.Label) {
		s = EscapeSubject(s)
	}
	if needsQuote(s) || unsafeText(l.Value) {
		return strconv.AppendQuote(b, s+" "+l.Value)
	}
	return append(append(append(b, s...), ' '), l.Value...)
}

// appendField appends field(s), or spacedField(s) when spaced.
func appendField(b []byte, s string, spaced bool) []byte {
	if spaced && (s == "" || strings.ContainsRune(s, ' ')) || needsQuote(s) {
		return strconv.AppendQuote(b, s)
	}
	return append(b, s...)
}

// Show is Text with the note, if any, after NoteSep: how explain and state
// show show a line.
func (l Line) Show() string {
	if l.Note == "" {
		return l.Text()
	}
	return l.Text() + NoteSep + field(l.Note)
}

// About is what the line is about, for matching the lines of two keys: the
// subject, or, on a dep line, the upstream's address.
func (l Line) About() string {
	if l.Label == "dep" && l.Note != "" {
		return l.Note
	}
	return l.Subject
}

// pathSubject reports whether a label's subject is a path, percent-encoded
// in the line's text so that a space in it cannot be read as the end of it.
func pathSubject(label string) bool {
	switch label {
	case "input", "file", "from", "read", "program":
		return true
	}
	return false
}

// EscapeSubject writes a path as one word of a key line: % and spaces are
// percent-encoded.
func EscapeSubject(s string) string {
	if !strings.ContainsAny(s, "% ") {
		return s
	}
	return strings.NewReplacer("%", "%25", " ", "%20").Replace(s)
}

// UnescapeSubject reverses EscapeSubject.
func UnescapeSubject(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	return strings.NewReplacer("%20", " ", "%25", "%").Replace(s)
}

// LinesSum is the digest of a key whose lines are lines: what Key.Sum gives
// for the key they were added to.
func LinesSum(lines []Line) Digest {
	h := sha256.New()
	var buf []byte
	for _, l := range lines {
		buf = append(l.appendText(buf[:0]), '\n')
		h.Write(buf)
	}
	var d Digest
	h.Sum(d[:0])
	return d
}
