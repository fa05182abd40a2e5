package review

import (
	"slices"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/hash"
)

// Renamed is a node whose address changed between the versions: by a moved
// block of the new version, or because a node left and one of its kind
// came with exactly the same key lines. Keys never hold names, so a rename
// alone reruns nothing (the result is restored from the store, or moved).
type Renamed struct {
	From string `json:"from"`
	To   string `json:"to"`
	Kind string `json:"kind"`
}

// findRenames pairs old addresses with new ones: the moved blocks of the
// new version first, then, in the old version's dependency order, each node
// that left with the one node of its kind that arrived with the same lines
// once earlier renames are applied to its dependencies' names.
func findRenames(old, cur *side) map[addr.Node]addr.Node {
	renames := map[addr.Node]addr.Node{}
	taken := map[addr.Node]bool{}
	for _, m := range cur.pipeline.Moved {
		if old.pipeline.Node(m.From) != nil && cur.pipeline.Node(m.To) != nil && old.pipeline.Node(m.To) == nil {
			renames[m.From], taken[m.To] = m.To, true
		}
	}
	var arrived []addr.Node
	for _, v := range cur.dag.Graph.Order() {
		a := cur.dag.Nodes[v].Addr
		if old.pipeline.Node(a) == nil && !taken[a] {
			arrived = append(arrived, a)
		}
	}
	for _, v := range old.dag.Graph.Order() {
		from := old.dag.Nodes[v].Addr
		if cur.pipeline.Node(from) != nil {
			continue
		}
		if _, done := renames[from]; done {
			continue
		}
		lines, ok := old.lines[from]
		if !ok {
			continue
		}
		lines = renameNotes(lines, renames)
		var match []addr.Node
		for _, to := range arrived {
			if to.Kind == from.Kind && !taken[to] && slices.Equal(lines, cur.lines[to]) {
				match = append(match, to)
			}
		}
		if len(match) == 1 {
			renames[from], taken[match[0]] = match[0], true
		}
	}
	return renames
}

// renameNotes rewrites the upstream addresses noted on dep lines to their
// new names: the only place a name appears in key lines.
func renameNotes(lines []hash.Line, renames map[addr.Node]addr.Node) []hash.Line {
	if len(renames) == 0 {
		return lines
	}
	out := slices.Clone(lines)
	for i, l := range lines {
		if l.Label != "dep" {
			continue
		}
		a, err := addr.Parse(l.Note)
		if err != nil {
			continue
		}
		if to, ok := renames[a]; ok {
			out[i].Note = to.String()
		}
	}
	return out
}
