package render

import (
	"github.com/kilnbuild/kiln/engine/graph"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/render/palette"
)

// GraphDOT draws g for kiln graph as Graphviz DOT: each node a box
// labelled with its plan symbol and address, in its action's colour.
func GraphDOT(g *graph.Graph, action func(v int) plan.Action) string {
	return g.DOT(func(v int) (string, map[string]string) {
		act := action(v)
		attrs := map[string]string{"shape": "box"}
		if col := palette.Action(act).DOT; col != "" {
			attrs["color"], attrs["fontcolor"] = col, col
		}
		return string(act) + " " + g.Name(v), attrs
	})
}

// GraphMermaid draws g for kiln graph as a Mermaid flowchart: each node
// labelled with its plan symbol and address, in its action's class.
func GraphMermaid(g *graph.Graph, action func(v int) plan.Action) string {
	return g.Mermaid(func(v int) (string, string) {
		act := action(v)
		return string(act) + " " + g.Name(v), palette.ClassName(act)
	}, palette.Class)
}
