package hash

import (
	"encoding/hex"
	"slices"
	"strconv"
)

// Entry is one item of a tree, as hashed by Tree.
type Entry struct {
	Path   string // slash-separated, relative to the root; "." for a root file or symlink
	Kind   byte   // 'd' folder, 'f' regular file, 'l' symlink, 'L' symlink followed (TreeOptions.FollowLinks)
	Exec   bool   // files, and followed links to a file: any exec bit set
	Size   int64  // files, and followed links to a file: size in bytes
	Target string // symlinks: the target, verbatim
	Digest Digest // files: SHA-256 of the content; followed links: the target file's, or the target folder's tree digest
	To     byte   // followed links: 'f' to a regular file, 'd' to a folder
}

// line returns the entry's line in a tree digest (see the package doc).
func (e Entry) line() string { return string(e.appendLine(nil)) }

// appendLine appends the entry's line, without its newline, to b.
func (e Entry) appendLine(b []byte) []byte {
	switch e.Kind {
	case 'd':
		return append(append(b, "d "...), field(e.Path)...)
	case 'l':
		b = append(append(b, "l "...), spacedField(e.Path)...)
		return append(append(b, ' '), field(e.Target)...)
	case 'L':
		b = append(append(b, "L "...), spacedField(e.Path)...)
		b = append(append(b, ' '), spacedField(e.Target)...)
		if e.To == 'd' {
			b = append(b, " d "...)
			return hex.AppendEncode(b, e.Digest[:])
		}
		b = append(b, " f"...)
		return e.appendFile(b)
	default:
		b = append(append(b, "f "...), field(e.Path)...)
		return e.appendFile(b)
	}
}

// appendFile appends the exec bit, size and digest of a file line, each
// after a space.
func (e Entry) appendFile(b []byte) []byte {
	if e.Exec {
		b = append(b, " x "...)
	} else {
		b = append(b, " - "...)
	}
	b = strconv.AppendInt(b, e.Size, 10)
	b = append(b, ' ')
	return hex.AppendEncode(b, e.Digest[:])
}

// Manifest returns the entries of the tree at path, sorted by Path, from the
// same walk as Tree: Tree's digest is the hash of their lines.
func Manifest(path string, c *StatCache) ([]Entry, error) {
	return manifest(path, c, TreeOptions{})
}

// DiffManifests returns the sorted paths whose entries differ between a and
// b or exist on one side only; nil when the manifests are equal.
func DiffManifests(a, b []Entry) []string {
	inA := make(map[string]Entry, len(a))
	for _, e := range a {
		inA[e.Path] = e
	}
	inB := make(map[string]bool, len(b))
	var diff []string
	for _, e := range b {
		inB[e.Path] = true
		if old, ok := inA[e.Path]; !ok || old != e {
			diff = append(diff, e.Path)
		}
	}
	for _, e := range a {
		if !inB[e.Path] {
			diff = append(diff, e.Path)
		}
	}
	slices.Sort(diff)
	return slices.Compact(diff)
}
