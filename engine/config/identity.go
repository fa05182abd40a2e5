package config

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"maps"
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// A node's configuration is read from its own block, from the locals and
// variables the block names (and the locals and variables those locals
// name), and from what every block may read: the kiln block, pools,
// executors, the cache and moved blocks. NodeIdentity digests the first
// two for one node — the block and each local by its source, each
// variable by its value — and SharedIdentity the third for the whole
// pipeline. A node whose identity and the shared identity are as they
// were evaluates as it did, given the same values of its upstreams, the
// same files read by its expressions and the same environment, which
// whoever compares identities checks apart (engine/memo). So an edit to
// one block, or to a local only some blocks use, leaves every other
// node's identity as it was.

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
type identity struct{ b []byte }

func newIdentity() *identity { return &identity{b: make([]byte, 0, 1024)} }

func (id *identity) field(b []byte) {
	id.b = append(binary.AppendUvarint(id.b, uint64(len(b))), b...)
}

func (id *identity) str(s string) {
	id.b = append(binary.AppendUvarint(id.b, uint64(len(s))), s...)
}

// value writes v and its type (AppendValue) as one field; false when v
// holds a marked value, which is not written out.
func (id *identity) value(v cty.Value) bool {
	enc, ok := AppendValue(AppendType(nil, v.Type()), v)
	id.field(enc)
	return ok
}

func (id *identity) sum() string {
	d := sha256.Sum256(id.b)
	return hex.EncodeToString(d[:])
}

// NodeIdentity digests what n's configuration is written as, apart from
// what SharedIdentity covers: its block's source and file (but for its
// for_each or count), its kind, its instance (each.key and each.value, or
// count.index), the locals and variables it names (writeNames), and the
// nodes it reads (its upstreams, and which node writes each input it
// reads in place). "" when it cannot be told (a block of a JSON file, a
// sensitive value).
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
		id.str("each")
		if !id.value(e.Key) || !id.value(e.Value) {
			return ""
		}
	}
	if n.CountIdx >= 0 {
		id.str("count")
		id.field(binary.AppendVarint(nil, int64(n.CountIdx)))
	}
	if !p.writeNames(id, b.names) {
		return ""
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

// SharedIdentity digests what any node's configuration may read beyond
// its own block and the locals and variables it names: every top-level
// block that is not a node, an output, a variable or a locals block (no
// node reads an output; variables and locals are in the identities of the
// nodes that name them), with its file's name and what it names, in the
// order of the files. "" when it cannot be told (a JSON file).
func (p *Pipeline) SharedIdentity() string {
	if p.opaque {
		return ""
	}
	id := newIdentity()
	id.str("shared")
	for _, b := range p.shared {
		src, ok := p.source(b.source)
		if !ok || !p.writeNames(id, b.names) {
			return ""
		}
		id.str(b.source.Filename)
		id.field(src)
	}
	return id.sum()
}

// names are the variables and locals a piece of configuration names.
type names struct {
	vars, locals       []string
	allVars, allLocals bool // it names var or local as a whole
}

func (ns *names) add(travs []hcl.Traversal) {
	for _, t := range travs {
		root := t.RootName()
		if root != "var" && root != "local" {
			continue
		}
		name, ok := attrStep(t, 1)
		switch {
		case root == "var" && ok:
			ns.vars = append(ns.vars, name)
		case root == "var":
			ns.allVars = true
		case ok:
			ns.locals = append(ns.locals, name)
		default:
			ns.allLocals = true
		}
	}
}

// namesIn are the variables and locals body names anywhere: in its
// attributes, and in its nested blocks'.
func namesIn(body *hclsyntax.Body) names {
	var ns names
	var walk func(*hclsyntax.Body)
	walk = func(b *hclsyntax.Body) {
		for _, a := range b.Attributes {
			ns.add(variablesOf(a.Expr))
		}
		for _, nested := range b.Blocks {
			walk(nested.Body)
		}
	}
	walk(body)
	return ns
}

// writeNames adds to id the locals ns names, with the locals those name in
// turn, each by its source, and the variables all of them name, each by
// its value; false when one cannot be told (a sensitive variable, whose
// value is not to be kept even as a digest, or a local that names local
// as a whole).
func (p *Pipeline) writeNames(id *identity, ns names) bool {
	used := map[string]bool{}
	var collect func(name string)
	collect = func(name string) {
		if l := p.Locals[name]; l != nil && !used[name] {
			used[name] = true
			for _, d := range l.deps {
				collect(d)
			}
		}
	}
	if ns.allLocals {
		for name := range p.Locals {
			collect(name)
		}
	}
	for _, name := range ns.locals {
		collect(name)
	}
	vars := names{vars: ns.vars, allVars: ns.allVars}
	id.str("locals")
	for _, name := range slices.Sorted(maps.Keys(used)) {
		l := p.Locals[name]
		src, ok := p.source(l.Range)
		if !ok {
			return false
		}
		id.str(name)
		id.str(l.Range.Filename)
		id.field(src)
		var own names
		own.add(variablesOf(l.Expr))
		if own.allLocals {
			return false
		}
		vars.vars = append(vars.vars, own.vars...)
		vars.allVars = vars.allVars || own.allVars
	}
	named := vars.vars
	if vars.allVars {
		named = slices.Collect(maps.Keys(p.Variables))
	}
	slices.Sort(named)
	id.str("vars")
	for _, name := range slices.Compact(named) {
		v := p.Variables[name]
		if v == nil {
			continue
		}
		if v.Sensitive || v.Value == cty.NilVal {
			return false
		}
		id.str(name)
		if !id.value(v.Value) {
			return false
		}
	}
	return true
}

// sharedBlock is a top-level block every node may read.
type sharedBlock struct {
	source hcl.Range
	names  names
}

// noteShared keeps b for SharedIdentity when it is a block every node may
// read.
func (p *Pipeline) noteShared(b *hcl.Block) {
	switch b.Type {
	case "output", "variable", "locals":
		return
	}
	if _, node := p.Kinds[b.Type]; node {
		return
	}
	r, ok := sourceRange(b)
	if !ok {
		p.opaque = true
		return
	}
	p.shared = append(p.shared, sharedBlock{source: r, names: namesIn(b.Body.(*hclsyntax.Body))})
}
