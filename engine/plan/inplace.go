package plan

import (
	"path/filepath"
	"sort"
	"strings"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/config"
)

// inPlaceEdges makes the edges that in-place outputs imply: a node whose
// inputs name a path another node writes in place (its outputs), or a
// folder holding one, or a glob matching one, depends on that node, though
// no expression references it. Without the edge, a clean checkout would
// hash the input before it exists (and a later plan, an old version of it).
// It returns the in-place outputs it found.
func inPlaceEdges(p *config.Pipeline) []inPlaceOutput {
	var outs []inPlaceOutput
	for _, n := range p.Nodes {
		list, ok := p.StaticStrings(n, "outputs")
		if !ok {
			continue
		}
		for _, o := range list {
			outs = append(outs, inPlaceOutput{filepath.Clean(absUnder(p.Root, o)), n.Addr, n})
		}
	}
	if len(outs) == 0 {
		return nil
	}
	for _, n := range p.Nodes {
		if !n.Meta.HasInputs {
			continue
		}
		patterns, ok := p.StaticStrings(n, "inputs")
		if !ok {
			continue
		}
		for _, pat := range patterns {
			for _, o := range outs {
				if o.by == n.Addr || !produces(p.Root, pat, o.path) {
					continue
				}
				if n.InputsFrom == nil {
					n.InputsFrom = map[string]addr.Node{}
				}
				n.InputsFrom[pat] = o.by
				if !hasDep(n.Deps, o.by) {
					n.Deps = append(n.Deps, o.by)
					sort.Slice(n.Deps, func(i, j int) bool { return n.Deps[i].Less(n.Deps[j]) })
				}
			}
		}
	}
	return outs
}

// inPlaceOutput is a path a node declares in outputs.
type inPlaceOutput struct {
	path string // absolute, cleaned
	by   addr.Node
	node *config.Node
}

// produces reports whether the output path is what the input pattern
// names: the same path, a folder holding it, a path inside it, or a glob
// that matches it.
func produces(root, pattern, out string) bool {
	in := filepath.Clean(absUnder(root, pattern))
	if !strings.ContainsAny(pattern, "*?[") {
		return in == out || within(in, out) || within(out, in)
	}
	rel, err := filepath.Rel(root, out)
	if err != nil || strings.HasPrefix(rel, "..") {
		return false
	}
	pat := filepath.ToSlash(pattern)
	if filepath.IsAbs(pattern) {
		if r, err := filepath.Rel(root, pattern); err == nil {
			pat = filepath.ToSlash(r)
		}
	}
	return matchSegments(strings.Split(pat, "/"), strings.Split(filepath.ToSlash(rel), "/"))
}

func hasDep(deps []addr.Node, a addr.Node) bool {
	for _, d := range deps {
		if d == a {
			return true
		}
	}
	return false
}
