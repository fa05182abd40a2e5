package plan

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/graph"
	"github.com/kilnbuild/kiln/engine/par"
)

// DAG is a pipeline's nodes as graph vertices: vertex i is Nodes[i].
type DAG struct {
	Graph *graph.Graph
	Nodes []*config.Node
	index map[addr.Node]int
}

// Vertex returns the vertex of an address.
func (d *DAG) Vertex(a addr.Node) (int, bool) {
	v, ok := d.index[a]
	return v, ok
}

// BuildDAG makes the graph of a pipeline and reports every cycle, naming
// each node on it with the place it is declared.
func BuildDAG(p *config.Pipeline) (*DAG, hcl.Diagnostics) {
	outs := inPlaceEdges(p)
	names := make([]string, len(p.Nodes))
	par.Each(len(names), runtime.GOMAXPROCS(0), func(i int) { names[i] = p.Nodes[i].Addr.String() })
	d := &DAG{Nodes: p.Nodes, index: make(map[addr.Node]int, len(p.Nodes))}
	for i, n := range p.Nodes {
		d.index[n.Addr] = i
	}
	d.Graph = graph.New(names)
	for i, n := range p.Nodes {
		for _, dep := range n.Deps {
			if j, ok := d.index[dep]; ok {
				d.Graph.AddEdge(i, j)
			}
		}
	}
	diags := overlappingOutputs(p.Root, outs)
	for _, cycle := range d.Graph.Cycles() {
		var b strings.Builder
		for _, v := range cycle {
			n := p.Nodes[v]
			fmt.Fprintf(&b, "\n  %s (%s:%d)", n.Addr, n.DeclRange.Filename, n.DeclRange.Start.Line)
		}
		first := p.Nodes[cycle[0]]
		fmt.Fprintf(&b, "\n  → back to %s", first.Addr)
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Dependency cycle",
			Detail:   "These nodes depend on each other in a circle, so none of them can run first:" + b.String() + "\nRemove one of the references or depends_on entries to break it.",
			Subject:  first.DeclRange.Ptr(),
		})
	}
	return d, diags
}

// Scope returns the vertices an operation covers: all of them, or the
// targets and everything they depend on.
func (d *DAG) Scope(targets []addr.Node) ([]bool, error) {
	in := make([]bool, len(d.Nodes))
	if len(targets) == 0 {
		for i := range in {
			in[i] = true
		}
		return in, nil
	}
	var roots []int
	for _, t := range targets {
		found := false
		for i, n := range d.Nodes {
			// An instance of a dynamic block is reached through its
			// placeholder, which expands the whole block.
			if n.Addr == t || !t.Key.Set && n.Addr.Block() == t || n.Placeholder() && n.Addr.Block() == t.Block() {
				roots = append(roots, i)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("-target %s: no such node in the pipeline", t)
		}
	}
	return d.Graph.Closure(roots), nil
}
