package run

import (
	"slices"
	"strings"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/refs"
	"github.com/kilnbuild/kiln/engine/state"
	"github.com/zclconf/go-cty/cty"
)

// A sealed run may read the results its node depends on itself and,
// after Nix's rule, those their results name: a venv that links an
// upstream's interpreter, a checkout installed in editable mode. Each
// result records, when it is published, which of its own upstreams it
// names (state.Record.Refs); a run reads those transitively, not the whole
// closure of everything that built its inputs, which in a layered pipeline
// hundreds deep is thousands of results, each a Landlock rule, a view link
// and a stat. A result that was not scanned names all of its upstreams.

// resultRefs are the keys of the upstream results of n that the result in
// dir, its in-place outputs outs and its attributes name, and whether the
// result was read to the end to find them.
func resultRefs(p *config.Pipeline, n *config.Node, record func(string) (*state.Record, bool), dir string, outs []state.Output, attrs map[string]string) ([]string, bool) {
	found := refs.NewFound()
	paths := []string{dir}
	for _, o := range outs {
		paths = append(paths, absPath(p.Root, o.Path))
	}
	if err := refs.Scan(found, paths...); err != nil {
		return nil, false
	}
	for _, v := range attrs {
		refs.String(found, v)
	}
	if len(found.Keys)+len(found.Names) == 0 {
		return nil, true
	}
	var out []string
	for _, up := range upstreamClosure(p, n) {
		rec, ok := record(up.String())
		if !ok || !rec.Good() {
			continue
		}
		if names(found, up, rec) {
			out = append(out, rec.Key)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), true
}

// names reports whether found holds a mark of up's result rec: its key,
// the key of its run folder or its stable link's name.
func names(found *refs.Found, up addr.Node, rec *state.Record) bool {
	if found.Keys[rec.Key] || found.Names[up.FileName()] {
		return true
	}
	key, _, ok := state.ParseEntry(rec.Entry)
	return ok && found.Keys[key]
}

// readableUpstreams are the upstreams whose results a sealed run of n may
// read: those n depends on itself (direct, first and in their order), those
// its configuration cfg names, and what each of those names in turn. The
// closure of n is walked only where a result names an upstream, was not
// scanned, or cfg names a result other than direct's.
func readableUpstreams(p *config.Pipeline, n *config.Node, cfg cty.Value, direct []addr.Node, record func(string) (*state.Record, bool)) []addr.Node {
	var out []addr.Node
	seen := map[addr.Node]bool{}
	// covered are the upstreams already in out with all they could name:
	// the closure of one that was not scanned holds theirs.
	covered := map[addr.Node]bool{}
	add := func(a addr.Node) {
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	for _, a := range direct {
		add(a)
	}
	var closure []addr.Node
	var byKey map[string][]addr.Node // the closure's results by key, once needed
	index := func() {
		if byKey != nil {
			return
		}
		closure = upstreamClosure(p, n)
		byKey = map[string][]addr.Node{}
		for _, a := range closure {
			if rec, ok := record(a.String()); ok && rec.Good() {
				byKey[rec.Key] = append(byKey[rec.Key], a)
			}
		}
	}
	// Every command names its own upstreams: only a mark left once theirs
	// are set aside costs a look through the closure.
	named := configMarks(cfg)
	for _, a := range direct {
		delete(named.Names, a.FileName())
		if rec, ok := record(a.String()); ok {
			delete(named.Keys, rec.Key)
			if key, _, ok := state.ParseEntry(rec.Entry); ok {
				delete(named.Keys, key)
			}
		}
	}
	for name := range named.Names {
		if !mayName(p, name) {
			delete(named.Names, name)
		}
	}
	if len(named.Keys)+len(named.Names) > 0 {
		index()
		for _, a := range closure {
			if rec, ok := record(a.String()); ok && rec.Good() && names(named, a, rec) {
				add(a)
			}
		}
	}
	for i := 0; i < len(out); i++ {
		a := out[i]
		if covered[a] {
			continue
		}
		rec, ok := record(a.String())
		if !ok || !rec.RefsScanned {
			// Not scanned: it may name anything it was built from.
			if u := p.Node(a); u != nil {
				for _, b := range closureOf(p, u.Deps, true) {
					add(b)
					covered[b] = true
				}
			}
			continue
		}
		for _, key := range rec.Refs {
			index()
			for _, b := range byKey[key] {
				add(b)
			}
		}
	}
	return out
}

// mayName reports whether a name found after "out/" may be a node's
// stable link: KIND.NAME of one of the pipeline's blocks, with an instance
// key after, or a shortened name (addr.Node.FileName). Every other "out/"
// in a configuration — a pipeline under bench/out/n10000, a checkout/
// folder — names nothing, and must not send every node's run through
// the walk of its whole closure.
func mayName(p *config.Pipeline, name string) bool {
	if strings.Contains(name, "~") {
		return true
	}
	kind, rest, ok := strings.Cut(name, ".")
	if !ok || p.Kinds[kind] == nil {
		return false
	}
	block, _, _ := strings.Cut(rest, "[")
	return p.HasBlock(addr.Node{Kind: kind, Name: block})
}

// configMarks are the marks of results that the strings of a node's
// evaluated configuration hold.
func configMarks(cfg cty.Value) *refs.Found {
	found := refs.NewFound()
	if cfg == cty.NilVal {
		return found
	}
	cfg, _ = cfg.UnmarkDeep()
	_ = cty.Walk(cfg, func(_ cty.Path, v cty.Value) (bool, error) {
		if v.IsKnown() && !v.IsNull() && v.Type() == cty.String {
			refs.String(found, v.AsString())
		}
		return true, nil
	})
	return found
}

// refOwner is the upstream in closure whose result path (a run folder in
// store, or below a stable link) lies in, for a refusal's message.
func refOwner(p *config.Pipeline, store *state.Store, closure []addr.Node, record func(string) (*state.Record, bool), path string) (addr.Node, bool) {
	for _, a := range closure {
		if within(p.OutPath(a), path) {
			return a, true
		}
		if rec, ok := record(a.String()); ok && rec.Entry != "" && within(store.RunPath(rec.Entry), path) {
			return a, true
		}
	}
	return addr.Node{}, false
}
