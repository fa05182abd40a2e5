package graph

import (
	"fmt"
	"slices"
)

// Graph is a directed graph over the dense vertices 0..Len()-1. An edge
// from -> to means "from depends on to".
type Graph struct {
	names      []string
	rank       []int // rank[v] is v's position when all vertices are sorted by name
	deps       [][]int
	dependents [][]int
	edges      map[uint64]struct{}
	err        error
}

// New returns a graph with len(names) vertices and no edges; names[i] is the
// display name of vertex i, used in messages and to break ties.
func New(names []string) *Graph {
	n := len(names)
	g := &Graph{
		names:      slices.Clone(names),
		rank:       make([]int, n),
		deps:       make([][]int, n),
		dependents: make([][]int, n),
		edges:      make(map[uint64]struct{}),
	}
	byName := make([]int, n)
	for i := range byName {
		byName[i] = i
	}
	slices.SortStableFunc(byName, func(a, b int) int { return compareStrings(names[a], names[b]) })
	for r, v := range byName {
		g.rank[v] = r
	}
	return g
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Len returns the number of vertices.
func (g *Graph) Len() int { return len(g.names) }

// Name returns the display name of v, or "" when v is not a vertex.
func (g *Graph) Name(v int) string {
	if !g.valid(v) {
		return ""
	}
	return g.names[v]
}

// AddEdge records that from depends on to. Duplicate edges are ignored. An
// edge naming a vertex outside 0..Len()-1 is dropped and reported by Err.
func (g *Graph) AddEdge(from, to int) {
	if !g.valid(from) || !g.valid(to) {
		if g.err == nil {
			g.err = fmt.Errorf("graph: edge %d -> %d names a vertex outside 0..%d; the caller's vertex table and the graph disagree", from, to, g.Len()-1)
		}
		return
	}
	key := uint64(uint32(from))<<32 | uint64(uint32(to))
	if _, ok := g.edges[key]; ok {
		return
	}
	g.edges[key] = struct{}{}
	g.deps[from] = append(g.deps[from], to)
	g.dependents[to] = append(g.dependents[to], from)
}

// Err reports the first edge that AddEdge dropped because it named a vertex
// that does not exist, or nil.
func (g *Graph) Err() error { return g.err }

// HasEdge reports whether from depends directly on to.
func (g *Graph) HasEdge(from, to int) bool {
	if !g.valid(from) || !g.valid(to) {
		return false
	}
	_, ok := g.edges[uint64(uint32(from))<<32|uint64(uint32(to))]
	return ok
}

// Deps returns the vertices v depends on directly, sorted by name. The slice
// is a fresh copy.
func (g *Graph) Deps(v int) []int {
	if !g.valid(v) {
		return nil
	}
	return g.sortedByName(g.deps[v])
}

// Dependents returns the vertices that depend directly on v, sorted by name.
// The slice is a fresh copy.
func (g *Graph) Dependents(v int) []int {
	if !g.valid(v) {
		return nil
	}
	return g.sortedByName(g.dependents[v])
}

func (g *Graph) valid(v int) bool { return v >= 0 && v < len(g.names) }

func (g *Graph) sortedByName(vs []int) []int {
	out := slices.Clone(vs)
	slices.SortFunc(out, func(a, b int) int { return g.rank[a] - g.rank[b] })
	return out
}

// sortedAdjacency returns every vertex's adjacency list (deps or dependents)
// sorted by name, for the traversals that must visit neighbours in a fixed
// order.
func (g *Graph) sortedAdjacency(adj [][]int) [][]int {
	out := make([][]int, len(adj))
	for v, vs := range adj {
		out[v] = g.sortedByName(vs)
	}
	return out
}
