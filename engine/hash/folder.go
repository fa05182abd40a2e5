package hash

import (
	"slices"
	"strings"
)

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

// Folders replaces many folders in a string at once, each by its own
// token, as ReplaceFolder would one after another, longest folder first
// (so that a folder that extends another is not cut). Replacing them one
// by one reads the whole string once per folder: a node that names ten
// thousand upstream results in one command would read a string of a
// megabyte ten thousand times. Folders that share one parent, as the
// stable paths of results do, are found in one pass instead: at each place
// the parent appears, the longest of their names that follows it there.
type Folders struct {
	parent  string            // the folders' common parent, with its slash; "" when they have none
	byName  map[string]string // name under parent → token
	lengths []int             // the names' lengths, longest first
	each    [][2]string       // without a common parent: folder, token, longest first
}

// NewFolders is the replacement of dirs[i] by tokens[i]. Of two equal
// folders the first is kept.
func NewFolders(dirs, tokens []string) *Folders {
	f := &Folders{}
	for i, d := range dirs {
		if d = strings.TrimRight(d, "/"); d != "" {
			f.each = append(f.each, [2]string{d, tokens[i]})
		}
	}
	slices.SortStableFunc(f.each, func(a, b [2]string) int { return len(b[0]) - len(a[0]) })
	if len(f.each) < 2 {
		return f
	}
	parent := f.each[0][0][:strings.LastIndexByte(f.each[0][0], '/')+1]
	byName := make(map[string]string, len(f.each))
	for _, e := range f.each {
		name, ok := strings.CutPrefix(e[0], parent)
		if !ok || parent == "" || name == "" || strings.Contains(name, "/") {
			return f
		}
		if _, seen := byName[name]; !seen {
			byName[name] = e[1]
			if n := len(f.lengths); n == 0 || f.lengths[n-1] != len(name) {
				f.lengths = append(f.lengths, len(name))
			}
		}
	}
	f.parent, f.byName, f.each = parent, byName, nil
	return f
}

// Replace is s with every folder replaced by its token.
func (f *Folders) Replace(s string) string {
	if f.parent == "" {
		for _, e := range f.each {
			s = ReplaceFolder(s, e[0], e[1])
		}
		return s
	}
	if !strings.Contains(s, f.parent) {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, f.parent)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		rest := s[i+len(f.parent):]
		if token, n, ok := f.nameAt(rest); ok {
			b.WriteString(s[:i])
			b.WriteString(token)
			s = rest[n:]
			continue
		}
		b.WriteString(s[:i+1])
		s = s[i+1:]
	}
}

// nameAt is the token of the longest name that starts rest and ends where
// a folder name can end, and that name's length.
func (f *Folders) nameAt(rest string) (token string, n int, ok bool) {
	for _, n := range f.lengths {
		if n > len(rest) || n < len(rest) && nameChar(rest[n]) {
			continue
		}
		if token, ok := f.byName[rest[:n]]; ok {
			return token, n, true
		}
	}
	return "", 0, false
}
