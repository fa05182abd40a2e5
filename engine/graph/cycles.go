package graph

import "slices"

// Cycles returns every cycle of the graph, or nil for a DAG: one cycle per
// strongly connected component of two or more vertices, and one per vertex
// that depends on itself. Each cycle is a real path v0 -> v1 -> ... -> v0
// (v0 depends on v1, and so on, and the last depends on v0), listed without
// repeating v0, starting at the component's smallest name: the shortest such
// path, neighbours tried in name order. The list is sorted by the names along
// each path, so the result is the same however the graph was built.
//
// A component can hold more cycles than the one reported; breaking the
// reported one and asking again shows the next.
func (g *Graph) Cycles() [][]int {
	var cycles [][]int
	for v := range g.Len() {
		if g.HasEdge(v, v) {
			cycles = append(cycles, []int{v})
		}
	}
	components := g.components()
	if len(components) > 0 {
		member := make([]int, g.Len()) // component number + 1, 0 when outside every component
		for c, vs := range components {
			for _, v := range vs {
				member[v] = c + 1
			}
		}
		deps := g.sortedAdjacency(g.deps)
		for c, vs := range components {
			start := slices.MinFunc(vs, func(a, b int) int { return g.rank[a] - g.rank[b] })
			cycles = append(cycles, shortestCycle(start, deps, member, c+1))
		}
	}
	slices.SortFunc(cycles, g.comparePaths)
	return cycles
}

// comparePaths orders paths by the names along them, shorter first on a tie.
func (g *Graph) comparePaths(a, b []int) int {
	for i := range min(len(a), len(b)) {
		if d := g.rank[a[i]] - g.rank[b[i]]; d != 0 {
			return d
		}
	}
	return len(a) - len(b)
}

// shortestCycle finds, by breadth-first search inside one component, the
// shortest path from start back to start that uses no self-loop.
func shortestCycle(start int, deps [][]int, member []int, component int) []int {
	parent := map[int]int{start: -1}
	queue := []int{start}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, w := range deps[v] {
			if w == v || member[w] != component {
				continue
			}
			if w == start {
				var path []int
				for u := v; u != -1; u = parent[u] {
					path = append(path, u)
				}
				slices.Reverse(path)
				return path
			}
			if _, seen := parent[w]; !seen {
				parent[w] = v
				queue = append(queue, w)
			}
		}
	}
	return []int{start} // unreachable for a component of two or more vertices
}

// components returns the strongly connected components with two or more
// vertices, found by Tarjan's algorithm run iteratively, so a long chain
// cannot exhaust the stack.
func (g *Graph) components() [][]int {
	n := g.Len()
	const unvisited = -1
	index := make([]int, n)
	low := make([]int, n)
	onStack := make([]bool, n)
	for v := range index {
		index[v] = unvisited
	}
	var (
		stack  []int
		result [][]int
		next   int
	)
	type frame struct{ v, edge int }
	for root := range n {
		if index[root] != unvisited {
			continue
		}
		call := []frame{{v: root}}
		index[root], low[root] = next, next
		next++
		stack = append(stack, root)
		onStack[root] = true
		for len(call) > 0 {
			top := &call[len(call)-1]
			v := top.v
			if top.edge < len(g.deps[v]) {
				w := g.deps[v][top.edge]
				top.edge++
				switch {
				case index[w] == unvisited:
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = true
					call = append(call, frame{v: w})
				case onStack[w]:
					low[v] = min(low[v], index[w])
				}
				continue
			}
			call = call[:len(call)-1]
			if len(call) > 0 {
				parent := call[len(call)-1].v
				low[parent] = min(low[parent], low[v])
			}
			if low[v] != index[v] {
				continue
			}
			var component []int
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				component = append(component, w)
				if w == v {
					break
				}
			}
			if len(component) > 1 {
				result = append(result, component)
			}
		}
	}
	return result
}
