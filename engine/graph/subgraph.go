package graph

// Subgraph returns the graph of the vertices with keep[v] set and the edges
// between them. Vertices are renumbered; names are kept.
func (g *Graph) Subgraph(keep []bool) *Graph {
	index := make([]int, len(g.names))
	var names []string
	for v, name := range g.names {
		index[v] = -1
		if v < len(keep) && keep[v] {
			index[v] = len(names)
			names = append(names, name)
		}
	}
	s := New(names)
	for v, deps := range g.deps {
		if index[v] < 0 {
			continue
		}
		for _, d := range deps {
			if index[d] >= 0 {
				s.AddEdge(index[v], index[d])
			}
		}
	}
	return s
}
