package config

import (
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/human"
	"github.com/zclconf/go-cty/cty"
)

// reference is a use of another node found in an expression.
type reference struct {
	target addr.Node // Key set when the expression indexes a literal instance
	rng    hcl.Range
	// index, when set, is an index known at load time (exec.map[each.key]):
	// each instance of the referring block names one instance of target.
	index hcl.Expression
}

// analyse finds what every block and local references and checks that each
// referenced variable, local and node exists.
func (p *Pipeline) analyse() hcl.Diagnostics {
	var diags hcl.Diagnostics
	blocks := make(map[addr.Node]*Block, len(p.Blocks))
	for _, b := range p.Blocks {
		blocks[b.Addr()] = b
	}
	localRefs := map[string][]reference{}
	for _, name := range slices.Sorted(maps.Keys(p.Locals)) {
		l := p.Locals[name]
		refs, locals, _, d := p.scan(variablesOf(l.Expr), blocks, false, nil)
		diags = append(diags, d...)
		localRefs[name] = refs
		l.deps = locals
	}
	diags = append(diags, p.localClosure(localRefs)...)
	// Each block is scanned on its own (reading the pipeline, writing only
	// the block), in parallel.
	blockDiags := make([]hcl.Diagnostics, len(p.Blocks))
	parallel(len(p.Blocks), func(i int) {
		blockDiags[i] = p.analyseBlock(p.Blocks[i], blocks)
	})
	for _, d := range blockDiags {
		diags = append(diags, d...)
	}
	for _, o := range p.Outputs {
		refs, locals, _, d := p.scan(variablesOf(o.Expr), blocks, false, nil)
		diags = append(diags, d...)
		for _, r := range refs {
			o.Deps = append(o.Deps, r.target.Block())
		}
		for _, l := range locals {
			o.Deps = append(o.Deps, p.Locals[l].nodes...)
		}
	}
	return diags
}

// analyseBlock finds the references, locals and self.out of one block.
func (p *Pipeline) analyseBlock(b *Block, blocks map[addr.Node]*Block) hcl.Diagnostics {
	var travs, expansion []hcl.Traversal
	var metaExprs []hcl.Expression
	for name, a := range b.meta {
		if name == "for_each" || name == "count" {
			expansion = append(expansion, variablesOf(a.Expr)...)
		} else {
			travs = append(travs, variablesOf(a.Expr)...)
		}
		metaExprs = append(metaExprs, a.Expr)
	}
	for _, a := range b.metrics {
		travs = append(travs, variablesOf(a.Expr)...)
	}
	travs = append(travs, specVariables(b)...)
	b.bodyLocals = slices.ContainsFunc(travs, func(t hcl.Traversal) bool { return t.RootName() == "local" })
	travs = append(travs, expansion...)
	// The body holds everything written in the block, meta-arguments and
	// nested blocks included (taken out of it only for decoding), so the
	// walk for indexes also finds every env() call.
	indexes, callsEnv := p.instanceIndexes(b.Body(), metaExprs...)
	b.callsEnv = callsEnv
	refs, locals, selfOut, diags := p.scan(travs, blocks, true, indexes)
	b.selfOut = selfOut
	b.self = readsSelf(travs)
	b.locals = locals
	if a, ok := followTarget(b, blocks); ok {
		b.follows = &a
	}
	b.readsEach = readsEach(travs)
	b.outOnly = p.readsOnlyOut(b, travs)
	for _, l := range locals {
		for _, n := range p.Locals[l].nodes {
			refs = append(refs, reference{target: n, rng: b.DeclRange})
		}
	}
	b.refs = refs
	return diags
}

// specVariables are the variables the kind's own attributes of b read,
// as hcldec.Variables finds them. For a native-syntax body and a spec made
// of attributes alone they are read from the body's attributes directly
// (leaving out the meta-arguments, which the body hides), in the order of
// their names: hcldec.Variables would build the spec's schema and a copy of
// the body for every block again.
func specVariables(b *Block) []hcl.Traversal {
	all := b.Body()
	body, ok := all.(*hclsyntax.Body)
	if !ok || !b.spec.attrsOnly {
		return hcldec.Variables(all, b.spec.spec)
	}
	var vars []hcl.Traversal
	for _, name := range b.spec.attrs {
		if a, set := body.Attributes[name]; set && !slices.Contains(metaArgs, name) {
			vars = append(vars, variablesOf(a.Expr)...)
		}
	}
	return vars
}

// scan classifies traversals: node references, locals used, and whether
// self.out is used. It reports references to things that do not exist.
// indexes are the load-time indexes of the block's per-instance references,
// by the range of the KIND.NAME they index.
func (p *Pipeline) scan(travs []hcl.Traversal, blocks map[addr.Node]*Block, inNode bool, indexes map[rangeKey]hcl.Expression) ([]reference, []string, bool, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	refs := make([]reference, 0, len(travs))
	var locals []string
	selfOut := false
	for _, t := range travs {
		root := t.RootName()
		rng := t.SourceRange()
		switch root {
		case "var":
			if name, ok := attrStep(t, 1); ok {
				if _, declared := p.Variables[name]; !declared {
					diags = append(diags, missing("variable", "var."+name, human.Closest(name, slices.Sorted(maps.Keys(p.Variables))), "var.", rng))
				}
			}
		case "local":
			if name, ok := attrStep(t, 1); ok {
				if _, declared := p.Locals[name]; !declared {
					diags = append(diags, missing("local value", "local."+name, human.Closest(name, slices.Sorted(maps.Keys(p.Locals))), "local.", rng))
				} else {
					locals = append(locals, name)
				}
			}
		case "path", "each", "count":
		case "self":
			if !inNode {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid reference to self", Detail: "self is only available inside a node block.", Subject: &rng})
				continue
			}
			name, ok := attrStep(t, 1)
			if !ok || name != "out" && name != "resources" {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid reference to self", Detail: "A node can refer to self.out, its own output folder, and self.resources.NAME, what it was given of a resource; nothing else of itself.", Subject: &rng})
				continue
			}
			selfOut = selfOut || name == "out"
		default:
			if _, isKind := p.Kinds[root]; !isKind {
				var names []string
				names = append(names, "var", "local", "path", "self", "each", "count")
				for k := range p.Kinds {
					names = append(names, k)
				}
				sort.Strings(names)
				detail := fmt.Sprintf("There is nothing called %q here: references start with var., local., path., self., each., count. or a node kind.", root)
				if s := human.Closest(root, names); s != "" {
					detail += fmt.Sprintf(" Did you mean %q?", s)
				}
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unknown reference", Detail: detail, Subject: &rng})
				continue
			}
			name, ok := attrStep(t, 1)
			if !ok {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid node reference", Detail: fmt.Sprintf("A reference to a %s node names it: %s.NAME.", root, root), Subject: &rng})
				continue
			}
			target := addr.Node{Kind: root, Name: name}
			if _, ok := blocks[target]; !ok {
				var same []string
				for a := range blocks {
					if a.Kind == root {
						same = append(same, a.Name)
					}
				}
				sort.Strings(same)
				diags = append(diags, missing("node", target.String(), human.Closest(name, same), root+".", rng))
				continue
			}
			if len(t) > 2 {
				if idx, ok := t[2].(hcl.TraverseIndex); ok {
					switch {
					case idx.Key.Type() == cty.String:
						target.Key = addr.StringKey(idx.Key.AsString())
					case idx.Key.Type() == cty.Number:
						if i, acc := idx.Key.AsBigFloat().Int64(); acc == 0 {
							target.Key = addr.IntKey(int(i))
						}
					}
				}
			}
			r := reference{target: target, rng: rng}
			if len(t) == 2 {
				r.index = indexes[keyOf(rng)]
			}
			refs = append(refs, r)
		}
	}
	return refs, locals, selfOut, diags
}

// readsOnlyOut reports whether the block reads nothing of another node but
// its stable path: every node reference in its attributes is KIND.NAME.out
// or KIND.NAME[KEY].out (depends_on names nodes without reading them), and
// no local it uses references a node. Its configuration then evaluates the
// same whatever its upstreams' digests.
func (p *Pipeline) readsOnlyOut(b *Block, travs []hcl.Traversal) bool {
	for _, l := range b.locals {
		if len(p.Locals[l].nodes) > 0 {
			return false
		}
	}
	skip := map[rangeKey]bool{}
	if a, ok := b.meta["depends_on"]; ok {
		for _, t := range variablesOf(a.Expr) {
			skip[keyOf(t.SourceRange())] = true
		}
	}
	if b.follows != nil {
		// A follower's for_each gives it its keys; its each.value is the
		// instance it follows, read like a reference to it.
		for _, t := range variablesOf(b.ForEach) {
			skip[keyOf(t.SourceRange())] = true
		}
	}
	for _, t := range travs {
		if b.follows != nil && t.RootName() == "each" {
			if name, _ := attrStep(t, 1); name == "key" {
				continue
			}
			if name, _ := attrStep(t, 2); name != "out" {
				return false
			}
			continue
		}
		if _, isKind := p.Kinds[t.RootName()]; !isKind || skip[keyOf(t.SourceRange())] {
			continue
		}
		step := 2
		if len(t) > step {
			if _, ok := t[step].(hcl.TraverseIndex); ok {
				step++
			}
		}
		if name, ok := attrStep(t, step); !ok || name != "out" {
			return false
		}
	}
	return true
}

func attrStep(t hcl.Traversal, i int) (string, bool) {
	if len(t) <= i {
		return "", false
	}
	a, ok := t[i].(hcl.TraverseAttr)
	return a.Name, ok
}

func missing(what, name, suggestion, prefix string, rng hcl.Range) *hcl.Diagnostic {
	detail := fmt.Sprintf("%s is not declared.", name)
	if suggestion != "" {
		detail += fmt.Sprintf(" Did you mean %s%s?", prefix, suggestion)
	}
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Reference to undeclared " + what, Detail: detail, Subject: &rng}
}

// localClosure computes the nodes each local references through other locals
// and reports cycles between locals.
func (p *Pipeline) localClosure(direct map[string][]reference) hcl.Diagnostics {
	var diags hcl.Diagnostics
	const (
		unvisited = iota
		visiting
		done
	)
	mark := map[string]int{}
	var visit func(name string, path []string) []addr.Node
	visit = func(name string, path []string) []addr.Node {
		l := p.Locals[name]
		switch mark[name] {
		case done:
			return l.nodes
		case visiting:
			cycle := append(path, name)
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cycle between local values",
				Detail: fmt.Sprintf("These locals refer to each other: %s.", joinLocals(cycle)), Subject: l.Range.Ptr()})
			return nil
		}
		mark[name] = visiting
		set := map[addr.Node]bool{}
		for _, r := range direct[name] {
			set[r.target] = true
		}
		for _, dep := range l.deps {
			for _, n := range visit(dep, append(path, name)) {
				set[n] = true
			}
		}
		mark[name] = done
		for n := range set {
			l.nodes = append(l.nodes, n)
		}
		sort.Slice(l.nodes, func(i, j int) bool { return l.nodes[i].Less(l.nodes[j]) })
		return l.nodes
	}
	for _, name := range slices.Sorted(maps.Keys(p.Locals)) {
		visit(name, nil)
	}
	return diags
}

func joinLocals(names []string) string {
	s := ""
	for i, n := range names {
		if i > 0 {
			s += " → "
		}
		s += "local." + n
	}
	return s
}

// readsSelf reports whether any traversal starts at self.
func readsSelf(travs []hcl.Traversal) bool {
	for _, t := range travs {
		if t.RootName() == "self" {
			return true
		}
	}
	return false
}

// ReadsSelf reports whether n's configuration, meta-arguments included,
// reads self (self.out, self.resources): only then does evaluating it for a
// run, with its real output folder and what it was given, differ from
// evaluating it to decide it.
func (n *Node) ReadsSelf() bool { return n.Block.self }
