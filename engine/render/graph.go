package render

import (
	"github.com/kilnbuild/kiln/engine/graph"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/render/palette"
)

// blockedMark is what a node's label says when the plan found it cannot
// run on this machine; such a node is drawn dashed, in blockedDOT, and in
// the "blocked" class of pictures, whatever its action.
const (
	blockedMark = " (cannot run here)"
	blockedDOT  = "darkgoldenrod"
)

// GraphDOT draws g for kiln graph as Graphviz DOT: each node a box
// labelled with its plan symbol and address, in its action's colour, or
// dashed and marked when blocked(v) says it cannot run here (blocked may be
// nil).
func GraphDOT(g *graph.Graph, action func(v int) plan.Action, blocked func(v int) bool) string {
	return g.DOT(func(v int) (string, map[string]string) {
		act := action(v)
		attrs := map[string]string{"shape": "box"}
		if col := palette.Action(act).DOT; col != "" {
			attrs["color"], attrs["fontcolor"] = col, col
		}
		label := string(act) + " " + g.Name(v)
		if blocked != nil && blocked(v) {
			attrs["color"], attrs["fontcolor"], attrs["style"] = blockedDOT, blockedDOT, "dashed"
			label += blockedMark
		}
		return label, attrs
	})
}

// GraphMermaid draws g for kiln graph as a Mermaid flowchart: each node
// labelled with its plan symbol and address, in its action's class, or in
// the class "blocked" and marked when blocked(v) says it cannot run here
// (blocked may be nil).
func GraphMermaid(g *graph.Graph, action func(v int) plan.Action, blocked func(v int) bool) string {
	return g.Mermaid(func(v int) (string, string) {
		act := action(v)
		if blocked != nil && blocked(v) {
			return string(act) + " " + g.Name(v) + blockedMark, "blocked"
		}
		return string(act) + " " + g.Name(v), palette.ClassName(act)
	}, palette.Class)
}
