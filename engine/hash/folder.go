package hash

import "strings"

// ReplaceFolder replaces dir in s by token where it names that folder:
// followed by a slash, the end, or a character that cannot continue a file
// name (so /a/pipe is replaced in /a/pipe/x, "/a/pipe" and /a/pipe:x, not
// in /a/pipe-data). Keys and digests write the state, pipeline and output
// folders this way ($KILN_STATE, $KILN_ROOT, $KILN_OUT), so they do not
// depend on where the pipeline lives. An empty dir, or "/", replaces
// nothing.
func ReplaceFolder(s, dir, token string) string {
	dir = strings.TrimRight(dir, "/")
	if dir == "" || !strings.Contains(s, dir) {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, dir)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(dir)
		if end == len(s) || !nameChar(s[end]) {
			b.WriteString(s[:i])
			b.WriteString(token)
		} else {
			b.WriteString(s[:end])
		}
		s = s[end:]
	}
}

func nameChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
}

// Relocatable writes the state folder in s as $KILN_STATE and the pipeline
// folder as $KILN_ROOT, the state folder first since it usually lies inside
// the pipeline folder: what keys and digests hold of a path, so that they
// stay the same when the pipeline is moved or cloned elsewhere.
func Relocatable(s, state, root string) string {
	return ReplaceFolder(ReplaceFolder(s, state, "$KILN_STATE"), root, RootMark)
}

// RootMark stands for the pipeline folder in what Relocatable writes.
const RootMark = "$KILN_ROOT"
