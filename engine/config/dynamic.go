package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/zclconf/go-cty/cty"
)

// Dynamic blocks. A for_each or count that reads another node's result —
// fileset(exec.split.out, "*.vcf"), glob_wildcards("${exec.split.out}/{s}.vcf"),
// listfile("${exec.split.out}/shards.txt") — cannot be evaluated when the
// pipeline loads. Such a block loads as one placeholder node, exec.annotate[*],
// which depends on everything the block references. Once those nodes have
// results (at plan time when they are up to date, during apply when they
// finished), Expand evaluates the for_each or count and records the
// instances; Node, blockValue and per-instance references see them from
// then on. Expansions are kept apart from the static index under their own
// lock, because apply expands while other nodes are evaluated.
//
// An instance depends on what its block's body references, not on what its
// for_each read: what it takes from there is its key and value, which enter
// its key through its configuration, and the files under those results that
// its key or value names (Dynamic.Files), whose digests enter its key. So a
// new shard adds one instance and leaves the others up to date.

// DefaultMaxDynamic bounds the instances one dynamic block may expand into.
const DefaultMaxDynamic = 100_000

// Dynamic marks the placeholder and the instances of a dynamic block.
type Dynamic struct {
	After []addr.Node // the blocks whose results the for_each or count reads
	Files []string    // for an instance: files under those results its key or value names
}

// Placeholder reports whether n stands for a dynamic block not expanded yet.
func (n *Node) Placeholder() bool { return n.Addr.Key.All }

type expansion struct {
	nodes []*Node
	index map[addr.Node]*Node
}

// dynamicSources returns the node blocks a block's for_each or count
// references, directly or through locals, sorted.
func (p *Pipeline) dynamicSources(b *Block) []addr.Node {
	e := b.ForEach
	if e == nil {
		e = b.Count
	}
	if e == nil {
		return nil
	}
	set := map[addr.Node]bool{}
	for _, t := range variablesOf(e) {
		root := t.RootName()
		name, ok := attrStep(t, 1)
		if !ok {
			continue
		}
		switch {
		case root == "local" && p.Locals[name] != nil:
			for _, n := range p.Locals[name].nodes {
				set[n.Block()] = true
			}
		case p.Kinds[root] != nil && p.blockOf[addr.Node{Kind: root, Name: name}] != nil:
			set[addr.Node{Kind: root, Name: name}] = true
		}
	}
	var out []addr.Node
	for a := range set {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Less(out[j]) })
	return out
}

// Concrete lists every node instance: the static ones and the instances of
// the dynamic blocks expanded so far, in address order within each block.
// complete is false while a dynamic block is not expanded.
func (p *Pipeline) Concrete() (nodes []*Node, complete bool) {
	complete = true
	for _, n := range p.Nodes {
		if !n.Placeholder() {
			nodes = append(nodes, n)
			continue
		}
		insts, ok := p.Expanded(n.Addr.Block())
		complete = complete && ok
		nodes = append(nodes, insts...)
	}
	return nodes, complete
}

// Expanded returns the instances of a dynamic block, once expanded.
func (p *Pipeline) Expanded(blk addr.Node) ([]*Node, bool) {
	p.dynMu.RLock()
	defer p.dynMu.RUnlock()
	e, ok := p.expanded[blk]
	if !ok {
		return nil, false
	}
	return e.nodes, true
}

// Dynamic reports whether the block at blk is dynamic.
func (p *Pipeline) Dynamic(blk addr.Node) bool {
	b := p.blockOf[blk.Block()]
	return b != nil && b.dynamic != nil
}

// blockInstances lists a block's instances; for a dynamic block, those of
// its expansion, and known is false before it is expanded.
func (p *Pipeline) blockInstances(blk addr.Node) (insts []addr.Node, known bool) {
	if !p.Dynamic(blk) {
		return p.instances[blk], true
	}
	nodes, ok := p.Expanded(blk)
	if !ok {
		return nil, false
	}
	insts = make([]addr.Node, len(nodes))
	for i, n := range nodes {
		insts[i] = n.Addr
	}
	return insts, true
}

// Expand evaluates the for_each or count of a dynamic block's placeholder
// against vals, which must hold the results of the nodes it reads, records
// the instances and returns them, sorted. A later call replaces the
// expansion.
func (p *Pipeline) Expand(ph *Node, vals Values) ([]*Node, hcl.Diagnostics) {
	b := ph.Block
	rec := newFileReads()
	ctx, diags := p.evalContext(ph, vals, "", rec)
	if diags.HasErrors() {
		return nil, diags
	}
	expr := b.ForEach
	if expr == nil {
		expr = b.Count
	}
	v, d := expr.Value(ctx)
	if d.HasErrors() {
		return nil, p.fromResults(ph, rec, d)
	}
	var nodes []*Node
	if b.ForEach != nil {
		nodes, d = p.forEachInstances(b, v, p.maxDynamic(), "for_each is not known yet.")
	} else {
		nodes, d = p.countInstances(b, v, p.maxDynamic())
	}
	if d.HasErrors() {
		return nil, p.fromResults(ph, rec, d)
	}
	src := p.newSources(ph.Dynamic.After)
	for _, n := range nodes {
		n.Dynamic = &Dynamic{After: ph.Dynamic.After, Files: p.sourceFiles(n, src)}
	}
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Addr.Less(nodes[j].Addr) })
	e := &expansion{nodes: nodes, index: make(map[addr.Node]*Node, len(nodes))}
	for _, n := range nodes {
		e.index[n.Addr] = n
	}
	p.dynMu.Lock()
	if p.expanded == nil {
		p.expanded = map[addr.Node]*expansion{}
	}
	p.expanded[b.Addr()] = e
	p.dynMu.Unlock()
	static := p.staticContext()
	for _, n := range nodes {
		diags = append(diags, p.resolveDeps(n, static)...)
		diags = append(diags, p.evalMeta(n)...)
	}
	return nodes, diags
}

// fromResults adds to each diagnostic of an expansion which node it is and
// which files of the upstream results it read (rec).
func (p *Pipeline) fromResults(ph *Node, rec *reads, diags hcl.Diagnostics) hcl.Diagnostics {
	var read []string
	for _, f := range rec.fileList() {
		for _, src := range ph.Dynamic.After {
			out := p.StateDir + "/out/" + src.FileName()
			if within(out, f.Path) || strings.HasPrefix(f.Path, out+"[") {
				read = append(read, relToRoot(p.Root, f.Path))
			}
		}
	}
	var afters []string
	for _, a := range ph.Dynamic.After {
		afters = append(afters, a.String())
	}
	from := fmt.Sprintf("%s: decided from the result of %s", ph.Addr, strings.Join(afters, ", "))
	if len(read) > 0 {
		from += " (" + strings.Join(read, ", ") + ")"
	}
	out := make(hcl.Diagnostics, len(diags))
	for i, d := range diags {
		c := *d
		c.Detail = from + ": " + c.Detail
		if c.Subject == nil {
			c.Subject = ph.DeclRange.Ptr()
		}
		out[i] = &c
	}
	return out
}

// sourceStat and sourceReadDir are how an expansion looks at the results
// its instances were made from (variables so that a test can count the
// lookups).
var (
	sourceStat    = os.Stat
	sourceReadDir = os.ReadDir
)

// sources are the results of the blocks an expansion read, where its
// instances' files are looked for (sourceFiles). They are gathered once per
// expansion, so that looking up an instance's files costs what its key and
// value name, not the number of results.
type sources struct {
	outs    map[string]bool // the results' stable paths, cleaned
	parents []string        // the folders holding them
	// names maps an entry's name to the results holding an entry of that
	// name, so that a relative name is looked for only where its first
	// element is. Listed on first use, and only when there is more than
	// one result to look in.
	names map[string][]string
}

func (p *Pipeline) newSources(after []addr.Node) *sources {
	s := &sources{outs: map[string]bool{}}
	for _, blk := range after {
		insts, _ := p.blockInstances(blk)
		for _, a := range insts {
			s.add(p.OutPath(a))
		}
	}
	return s
}

func (s *sources) add(out string) {
	out = filepath.Clean(out)
	if s.outs[out] {
		return
	}
	s.outs[out] = true
	if parent := filepath.Dir(out); !slices.Contains(s.parents, parent) {
		s.parents = append(s.parents, parent)
	}
}

// holding returns the results that may hold the relative path rel (clean,
// not leaving the result): all of them when there is one, else those with
// an entry named as rel's first element.
func (s *sources) holding(rel string) []string {
	if len(s.outs) == 1 {
		for out := range s.outs {
			return []string{out}
		}
	}
	if s.names == nil {
		s.names = map[string][]string{}
		for out := range s.outs {
			entries, _ := sourceReadDir(out)
			for _, e := range entries {
				s.names[e.Name()] = append(s.names[e.Name()], out)
			}
		}
	}
	first, _, _ := strings.Cut(rel, string(filepath.Separator))
	return s.names[first]
}

// sourceFiles finds the files under the results of the blocks the
// expansion read (src) that instance n's key or value names, as a path
// under such a result or relative to it. An instance that follows an
// instance of a dynamic block (follow.go) looks under that instance's
// result alone.
func (p *Pipeline) sourceFiles(n *Node, src *sources) []string {
	if a, ok := n.followed(); ok {
		src = &sources{outs: map[string]bool{}}
		src.add(p.OutPath(a))
	}
	var strs []string
	collect := func(v cty.Value) {
		_ = cty.Walk(v, func(_ cty.Path, x cty.Value) (bool, error) {
			if x.IsKnown() && !x.IsNull() && x.Type() == cty.String {
				strs = append(strs, x.AsString())
			}
			return true, nil
		})
	}
	if n.Each != nil {
		collect(n.Each.Key)
		collect(n.Each.Value)
	}
	seen := map[string]bool{}
	var files []string
	look := func(f string) {
		if seen[f] {
			return
		}
		if fi, err := sourceStat(f); err == nil && fi.Mode().IsRegular() {
			seen[f] = true
			files = append(files, f)
		}
	}
	// under looks at f, a clean absolute path, if a result holds it.
	under := func(f string) {
		for d := filepath.Dir(f); ; d = filepath.Dir(d) {
			if src.outs[d] {
				look(f)
				return
			}
			if d == filepath.Dir(d) {
				return
			}
		}
	}
	for _, s := range strs {
		f := filepath.Clean(s)
		switch {
		case filepath.IsAbs(f):
			under(f)
		case f == ".":
			// the result itself
		case f == ".." || strings.HasPrefix(f, ".."+string(filepath.Separator)):
			// It leaves the result it is relative to: the same path for
			// every result in one folder.
			for _, parent := range src.parents {
				under(filepath.Join(parent, "x", f))
			}
		default:
			for _, out := range src.holding(f) {
				look(filepath.Join(out, f))
			}
		}
	}
	sort.Strings(files)
	return files
}

func (p *Pipeline) maxDynamic() int {
	if p.maxDyn > 0 {
		return p.maxDyn
	}
	return DefaultMaxDynamic
}

func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

func relToRoot(root, p string) string {
	if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return p
}
