package hash

import "fmt"

// FormatVersion salts every key; bump it when key lines change meaning.
const FormatVersion = "kiln-key-1"

// Key accumulates the labelled lines of a node's key, in the order they are
// added. The zero Key is ready to use and equals NewKey().
type Key struct {
	lines []string
}

// NewKey returns a key whose first line is "format " + FormatVersion.
func NewKey() *Key {
	k := &Key{}
	k.init()
	return k
}

func (k *Key) init() {
	if k.lines == nil {
		k.lines = []string{"format " + FormatVersion}
	}
}

// Add appends the line "label value". A value holding a newline or another
// control character, invalid UTF-8 or a leading double quote is written
// strconv.Quote'd, so one logical line is always one physical line. A label
// is meant to be a fixed word; one holding a space is quoted as well.
func (k *Key) Add(label, value string) {
	k.init()
	k.lines = append(k.lines, spacedField(label)+" "+field(value))
}

// Addf is Add with a formatted value.
func (k *Key) Addf(label, format string, args ...any) {
	k.Add(label, fmt.Sprintf(format, args...))
}

// Lines returns a copy of the key's lines, in insertion order.
func (k *Key) Lines() []string {
	k.init()
	return append([]string(nil), k.lines...)
}

// Sum returns the key's digest, equal to Lines(k.Lines()...).
func (k *Key) Sum() Digest {
	k.init()
	return Lines(k.lines...)
}
