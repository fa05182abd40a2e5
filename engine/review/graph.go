package review

import (
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/render/palette"
)

// affectedGraph draws the nodes of the new version that would rerun and
// the edges between them as a Mermaid flowchart: changed nodes in the
// colours of a rebuild (~), added ones as a create (+), invalidated ones as
// a maybe (?). It is empty when nothing reruns.
func affectedGraph(s *side, r *Report) string {
	why := map[string]plan.Action{}
	for _, c := range r.Changed {
		why[c.Address] = plan.Rebuild
	}
	for _, n := range r.Added {
		why[n.Address] = plan.Create
	}
	for _, n := range r.Invalidated {
		why[n.Address] = plan.Maybe
	}
	if len(why) == 0 {
		return ""
	}
	g := s.dag.Graph
	keep := make([]bool, g.Len())
	for v := range keep {
		_, keep[v] = why[g.Name(v)]
	}
	sub := g.Subgraph(keep)
	return sub.Mermaid(func(v int) (string, string) {
		act := why[sub.Name(v)]
		return string(act) + " " + sub.Name(v), palette.ClassName(act)
	}, palette.Class)
}
