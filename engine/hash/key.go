package hash

import (
	"fmt"
	"slices"
)

// FormatVersion salts every key; bump it when key lines change meaning.
// kiln-key-3: digests of files above ChunkSize are chunked.
// kiln-key-4: sensitive values and env() reads are hashed with the state
// folder's secret (state.Secret).
const FormatVersion = "kiln-key-4"

// Key accumulates the labelled lines of a node's key, in the order they are
// added. The zero Key is ready to use and equals NewKey().
type Key struct {
	lines []Line
}

// NewKey returns a key whose first line is "format " + FormatVersion.
func NewKey() *Key {
	k := &Key{}
	k.init()
	return k
}

func (k *Key) init() {
	if k.lines == nil {
		k.lines = []Line{{Label: "format", Value: FormatVersion}}
	}
}

// Add appends the line "label value". A value holding a newline or another
// control character, invalid UTF-8 or a leading double quote is written
// strconv.Quote'd, so one logical line is always one physical line. A label
// is meant to be a fixed word; one holding a space is quoted as well.
func (k *Key) Add(label, value string) {
	k.AddLine(Line{Label: label, Value: value})
}

// AddLine appends a line with its subject and note (see Line); the note
// never changes the key.
func (k *Key) AddLine(l Line) {
	k.init()
	k.lines = append(k.lines, l)
}

// Len is the number of lines.
func (k *Key) Len() int {
	k.init()
	return len(k.lines)
}

// NoteSep separates a key line from its note.
const NoteSep = " # "

// Addf is Add with a formatted value.
func (k *Key) Addf(label, format string, args ...any) {
	k.Add(label, fmt.Sprintf(format, args...))
}

// Lines returns a copy of the key's lines, in insertion order.
func (k *Key) Lines() []Line {
	k.init()
	return append([]Line(nil), k.lines...)
}

// Take returns the key's lines, in insertion order, without a copy, and
// leaves the key as NewKey makes it: for the key's last reader.
func (k *Key) Take() []Line {
	k.init()
	lines := k.lines
	k.lines = nil
	return lines
}

// Grow makes room for n more lines.
func (k *Key) Grow(n int) {
	k.init()
	k.lines = slices.Grow(k.lines, n)
}

// Sum returns the key's digest: Lines over the lines' texts (Line.Text),
// without their notes.
func (k *Key) Sum() Digest {
	k.init()
	return LinesSum(k.lines)
}
