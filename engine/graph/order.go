package graph

import "container/heap"

// Order returns the vertices in a topological order, dependencies first, with
// ties broken by name: of all vertices whose dependencies are already placed,
// the one with the smallest name comes next (Kahn's algorithm over a
// min-heap). The order depends only on the names and edges, never on the
// order in which edges were added.
//
// Callers check Cycles first. On a cyclic graph Order returns only the
// acyclic part: the vertices that neither lie on a cycle nor depend on one.
func (g *Graph) Order() []int {
	n := g.Len()
	waiting := make([]int, n) // unplaced dependencies per vertex
	ready := &rankHeap{rank: g.rank}
	for v := range n {
		waiting[v] = len(g.deps[v])
		if waiting[v] == 0 {
			ready.items = append(ready.items, v)
		}
	}
	heap.Init(ready)
	order := make([]int, 0, n)
	for ready.Len() > 0 {
		v := heap.Pop(ready).(int)
		order = append(order, v)
		for _, d := range g.dependents[v] {
			waiting[d]--
			if waiting[d] == 0 {
				heap.Push(ready, d)
			}
		}
	}
	return order
}

// Closure returns, indexed by vertex, whether it is one of roots or something
// they depend on, directly or transitively. Roots outside the graph are
// ignored.
func (g *Graph) Closure(roots []int) []bool {
	return g.reach(roots, g.deps)
}

// Downstream returns, indexed by vertex, whether it is one of roots or
// depends on one of them, directly or transitively. Roots outside the graph
// are ignored.
func (g *Graph) Downstream(roots []int) []bool {
	return g.reach(roots, g.dependents)
}

func (g *Graph) reach(roots []int, adj [][]int) []bool {
	seen := make([]bool, g.Len())
	stack := make([]int, 0, len(roots))
	for _, r := range roots {
		if g.valid(r) && !seen[r] {
			seen[r] = true
			stack = append(stack, r)
		}
	}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, w := range adj[v] {
			if !seen[w] {
				seen[w] = true
				stack = append(stack, w)
			}
		}
	}
	return seen
}

// rankHeap is a min-heap of vertices ordered by name rank.
type rankHeap struct {
	items []int
	rank  []int
}

func (h *rankHeap) Len() int           { return len(h.items) }
func (h *rankHeap) Less(i, j int) bool { return h.rank[h.items[i]] < h.rank[h.items[j]] }
func (h *rankHeap) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *rankHeap) Push(x any)         { h.items = append(h.items, x.(int)) }
func (h *rankHeap) Pop() any {
	last := len(h.items) - 1
	v := h.items[last]
	h.items = h.items[:last]
	return v
}
