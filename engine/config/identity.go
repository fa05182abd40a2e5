package config

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"maps"
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// A node's configuration is read from two places: its own block, and what
// every block may read (variables, locals, the kiln block, pools,
// executors, the cache, moved blocks; no node reads an output).
// NodeIdentity digests the first for one node, SharedIdentity the second
// for the whole pipeline. A node whose identity and the shared identity
// are as they were evaluates as it did, given the same values of its
// upstreams, the same files read by its expressions and the same
// environment — which whoever compares identities checks apart
// (engine/memo). So an edit to one block leaves every other node's
// identity as it was.

// sourceRange is a top-level block's whole source, from its type to its
// closing brace; false when its file is not native HCL syntax (a JSON
// file), whose blocks have no source of their own.
func sourceRange(b *hcl.Block) (hcl.Range, bool) {
	body, ok := b.Body.(*hclsyntax.Body)
	if !ok {
		return hcl.Range{}, false
	}
	return hcl.RangeBetween(b.TypeRange, body.SrcRange), true
}

// source is the bytes of r in its file; false when the file does not hold
// them.
func (p *Pipeline) source(r hcl.Range) ([]byte, bool) {
	f := p.Files[r.Filename]
	if f == nil || r.Start.Byte < 0 || r.Start.Byte > r.End.Byte || r.End.Byte > len(f.Bytes) {
		return nil, false
	}
	return f.Bytes[r.Start.Byte:r.End.Byte], true
}

// identity writes length-prefixed fields, so that no two sequences of
// fields digest alike.
type identity struct{ h hash.Hash }

func newIdentity() identity { return identity{sha256.New()} }

func (id identity) field(b []byte) {
	id.h.Write(binary.AppendUvarint(nil, uint64(len(b))))
	id.h.Write(b)
}

func (id identity) str(s string) { id.field([]byte(s)) }

func (id identity) sum() string { return hex.EncodeToString(id.h.Sum(nil)) }

// NodeIdentity digests what n's configuration is written as, apart from
// what SharedIdentity covers: its block's source and file (but for its
// for_each or count), its kind, its instance (each.key and each.value, or
// count.index), and the nodes it
// reads (its upstreams, and which node writes each input it reads in
// place). "" when it cannot be told (a block of a JSON file, an instance
// whose each.value holds a sensitive value).
func (p *Pipeline) NodeIdentity(n *Node) string {
	b := n.Block
	src, ok := p.source(b.Source)
	if !ok || b.Source == (hcl.Range{}) {
		return ""
	}
	id := newIdentity()
	id.str("node")
	id.str(b.Kind.Name())
	id.str(b.Source.Filename)
	if in := b.instances; in != (hcl.Range{}) {
		// The instance is identified by its each.key and each.value or
		// count.index, not by the collection it is one of: a new element
		// leaves the others as they were.
		from, to := in.Start.Byte-b.Source.Start.Byte, in.End.Byte-b.Source.Start.Byte
		if in.Filename != b.Source.Filename || from < 0 || from > to || to > len(src) {
			return ""
		}
		id.field(src[:from])
		id.str("instances")
		src = src[to:]
	}
	id.field(src)
	id.str(n.Addr.String())
	if e := n.Each; e != nil {
		if e.Key.ContainsMarked() || e.Value.ContainsMarked() {
			return ""
		}
		id.str("each")
		id.str(e.Key.GoString())
		id.str(e.Value.Type().GoString())
		id.str(e.Value.GoString())
	}
	if n.CountIdx >= 0 {
		id.str("count")
		id.field(binary.AppendVarint(nil, int64(n.CountIdx)))
	}
	id.str("deps")
	for _, d := range n.Deps {
		id.str(d.String())
	}
	id.str("inputs from")
	for _, pat := range slices.Sorted(maps.Keys(n.InputsFrom)) {
		id.str(pat)
		id.str(n.InputsFrom[pat].String())
	}
	return id.sum()
}

// SharedIdentity digests every top-level block of the pipeline that is
// neither a node block nor an output, with its file's name, in the order
// of the files: what any node's configuration may read beyond its own
// block. The values given to
// variables from outside (-var, variable files, the environment) are not
// in it: they are not in the files. "" when it cannot be told (a JSON
// file).
func (p *Pipeline) SharedIdentity() string {
	if p.opaque {
		return ""
	}
	id := newIdentity()
	id.str("shared")
	for _, r := range p.shared {
		src, ok := p.source(r)
		if !ok {
			return ""
		}
		id.str(r.Filename)
		id.field(src)
	}
	return id.sum()
}
