package hash

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// needsQuote reports whether s must be strconv.Quote'd to stay one
// unambiguous field of one physical line: it holds a control character
// (newline, carriage return, tab, ...), is not valid UTF-8, or starts with a
// double quote and so would read as a quoted field.
func needsQuote(s string) bool {
	return strings.HasPrefix(s, `"`) || unsafeText(s)
}

// unsafeText reports whether s holds a control character or is not valid
// UTF-8, wherever it stands in a field.
func unsafeText(s string) bool {
	if !utf8.ValidString(s) {
		return true
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return true
		}
	}
	return false
}

// field returns s as written in a key or tree line.
func field(s string) string {
	if needsQuote(s) {
		return strconv.Quote(s)
	}
	return s
}

// spacedField is field for a value followed by another free-form field: a
// space would make the split between the two ambiguous, so it is quoted too.
func spacedField(s string) string {
	if s == "" || strings.ContainsRune(s, ' ') {
		return strconv.Quote(s)
	}
	return field(s)
}
