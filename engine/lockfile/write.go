package lockfile

import (
	"bytes"
	"sort"
	"strconv"

	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/zclconf/go-cty/cty"
)

// header opens every lock kiln writes.
const header = "# kiln.lock.hcl: written by kiln; commit it. Edit the pipeline, not this file.\n"

// Bytes renders the lock in its canonical form.
func (f *File) Bytes() []byte {
	var b bytes.Buffer
	b.WriteString(header)
	b.WriteString("version = " + strconv.Itoa(Version) + "\n")
	for _, a := range sortedAddrs(f.Pins) {
		writeBlock(&b, "pin", a, f.Pins[a])
	}
	for _, a := range sortedAddrs(f.Nodes) {
		n := f.Nodes[a]
		attrs := map[string]string{"key": n.Key, "digest": n.Digest, "kiln": n.Kiln}
		if n.Digest == "" {
			delete(attrs, "digest") // deterministic = false: it varies by nature
		}
		writeBlock(&b, "node", a, attrs)
	}
	return b.Bytes()
}

// nodeAttrOrder is the order of a node block's attributes: the key that
// decided the build, what it produced, and who built it.
var nodeAttrOrder = map[string]int{"key": 0, "digest": 1, "kiln": 2}

func writeBlock(b *bytes.Buffer, typ, label string, attrs map[string]string) {
	names := make([]string, 0, len(attrs))
	width := 0
	for n := range attrs {
		names = append(names, n)
		width = max(width, len(n))
	}
	sort.Slice(names, func(i, j int) bool {
		if typ == "node" {
			return nodeAttrOrder[names[i]] < nodeAttrOrder[names[j]]
		}
		return names[i] < names[j]
	})
	b.WriteString("\n" + typ + " " + quote(label) + " {\n")
	for _, n := range names {
		b.WriteString("  " + n)
		for range width - len(n) {
			b.WriteByte(' ')
		}
		b.WriteString(" = " + quote(attrs[n]) + "\n")
	}
	b.WriteString("}\n")
}

// quote writes s as an HCL string literal, escaping quotes, backslashes,
// control characters and template sequences.
func quote(s string) string {
	if safeString(s) {
		return `"` + s + `"` // what hclwrite writes for it, without its tokens
	}
	return string(hclwrite.TokensForValue(cty.StringVal(s)).Bytes())
}

// sortedAddrs orders addresses as kiln lists nodes everywhere: by kind, name
// and instance key, integer keys numerically.
func sortedAddrs[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for a := range m {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool {
		a, errA := addr.Parse(out[i])
		b, errB := addr.Parse(out[j])
		if errA != nil || errB != nil || a == b {
			return out[i] < out[j]
		}
		return a.Less(b)
	})
	return out
}
