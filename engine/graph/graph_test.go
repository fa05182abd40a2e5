package graph

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// build returns a graph over names with the given edges, given as pairs of
// names "from depends on to".
func build(t testing.TB, names []string, edges [][2]string) *Graph {
	t.Helper()
	index := map[string]int{}
	for i, n := range names {
		index[n] = i
	}
	g := New(names)
	for _, e := range edges {
		from, ok1 := index[e[0]]
		to, ok2 := index[e[1]]
		if !ok1 || !ok2 {
			t.Fatalf("edge %v names an unknown vertex", e)
		}
		g.AddEdge(from, to)
	}
	if err := g.Err(); err != nil {
		t.Fatal(err)
	}
	return g
}

// namesOf maps vertices to their names, so expectations read as names.
func namesOf(g *Graph, vs []int) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = g.Name(v)
	}
	return out
}

func TestDepsAndDependentsSortedAndDeduplicated(t *testing.T) {
	names := []string{"exec.z", "exec.a", "git_repo.m", "fetch.b"}
	g := build(t, names, [][2]string{
		{"exec.z", "git_repo.m"}, {"exec.z", "exec.a"}, {"exec.z", "fetch.b"},
		{"exec.z", "exec.a"}, // duplicate
		{"exec.a", "fetch.b"},
	})
	if diff := cmp.Diff([]string{"exec.a", "fetch.b", "git_repo.m"}, namesOf(g, g.Deps(0))); diff != "" {
		t.Errorf("Deps(exec.z) (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"exec.a", "exec.z"}, namesOf(g, g.Dependents(3))); diff != "" {
		t.Errorf("Dependents(fetch.b) (-want +got):\n%s", diff)
	}
	if g.Len() != 4 {
		t.Errorf("Len = %d, want 4", g.Len())
	}
	if got := g.Deps(7); got != nil {
		t.Errorf("Deps(out of range) = %v, want nil", got)
	}
}

func TestAddEdgeOutOfRangeIsReported(t *testing.T) {
	g := New([]string{"a", "b"})
	g.AddEdge(0, 5)
	g.AddEdge(-1, 0)
	if g.Err() == nil {
		t.Fatal("Err = nil after an edge to a vertex that does not exist")
	}
	if len(g.Deps(0)) != 0 || len(g.Dependents(0)) != 0 {
		t.Errorf("bad edges were stored: deps %v dependents %v", g.Deps(0), g.Dependents(0))
	}
}

func TestClosureAndDownstream(t *testing.T) {
	// d -> b -> a, c -> a, e alone, f -> d
	names := []string{"a", "b", "c", "d", "e", "f"}
	g := build(t, names, [][2]string{{"b", "a"}, {"c", "a"}, {"d", "b"}, {"f", "d"}})
	set := func(marks []bool) []string {
		var out []string
		for v, ok := range marks {
			if ok {
				out = append(out, g.Name(v))
			}
		}
		return out
	}
	tests := []struct {
		name       string
		roots      []int
		closure    []string
		downstream []string
	}{
		{"leaf", []int{0}, []string{"a"}, []string{"a", "b", "c", "d", "f"}},
		{"middle", []int{3}, []string{"a", "b", "d"}, []string{"d", "f"}},
		{"two roots", []int{2, 3}, []string{"a", "b", "c", "d"}, []string{"c", "d", "f"}},
		{"isolated", []int{4}, []string{"e"}, []string{"e"}},
		{"none", nil, nil, nil},
		{"out of range ignored", []int{-1, 99, 5}, []string{"a", "b", "d", "f"}, []string{"f"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.closure, set(g.Closure(tt.roots))); diff != "" {
				t.Errorf("Closure (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.downstream, set(g.Downstream(tt.roots))); diff != "" {
				t.Errorf("Downstream (-want +got):\n%s", diff)
			}
		})
	}
}

// randomDAG returns n vertices named in a shuffled way and edges that only
// point from a later vertex to an earlier one of a hidden order, so the
// graph is acyclic.
func randomDAG(r *rand.Rand, n, edges int) ([]string, [][2]int) {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("exec.v%05d", r.IntN(1_000_000)*10+i%10)
	}
	for i := range names {
		names[i] = fmt.Sprintf("%s_%d", names[i], i) // unique
	}
	hidden := r.Perm(n)
	var es [][2]int
	for range edges {
		a, b := r.IntN(n), r.IntN(n)
		if a == b {
			continue
		}
		if hidden[a] < hidden[b] {
			a, b = b, a
		}
		es = append(es, [2]int{a, b}) // a depends on b, b earlier in hidden order
	}
	return names, es
}

func TestOrderValidAndDeterministicOnRandomDAGs(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for trial := range 50 {
		n := 1 + r.IntN(200)
		names, edges := randomDAG(r, n, r.IntN(4*n))
		g := New(names)
		for _, e := range edges {
			g.AddEdge(e[0], e[1])
		}
		order := g.Order()
		if len(order) != n {
			t.Fatalf("trial %d: Order has %d vertices, want %d", trial, len(order), n)
		}
		pos := make([]int, n)
		for i, v := range order {
			pos[v] = i
		}
		for _, e := range edges {
			if pos[e[1]] >= pos[e[0]] {
				t.Fatalf("trial %d: %s depends on %s but comes first", trial, names[e[0]], names[e[1]])
			}
		}
		// The same graph, edges added in another order, gives the same order.
		again := New(names)
		for _, i := range r.Perm(len(edges)) {
			again.AddEdge(edges[i][0], edges[i][1])
		}
		if diff := cmp.Diff(order, again.Order()); diff != "" {
			t.Fatalf("trial %d: order depends on edge insertion (-first +second):\n%s", trial, diff)
		}
		if got := g.Cycles(); len(got) != 0 {
			t.Fatalf("trial %d: Cycles on a DAG = %v", trial, got)
		}
	}
}

func TestOrderBreaksTiesByNameAndIgnoresVertexNumbers(t *testing.T) {
	edges := [][2]string{{"exec.train", "exec.prep"}, {"exec.prep", "git_repo.verl"}, {"exec.prep", "fetch.data"}, {"exec.eval", "exec.train"}}
	want := []string{"fetch.data", "git_repo.verl", "exec.prep", "exec.train", "exec.eval", "host.a2"}
	for _, names := range [][]string{
		{"exec.eval", "exec.prep", "exec.train", "fetch.data", "git_repo.verl", "host.a2"},
		{"host.a2", "git_repo.verl", "fetch.data", "exec.train", "exec.prep", "exec.eval"},
	} {
		g := build(t, names, edges)
		if diff := cmp.Diff(want, namesOf(g, g.Order())); diff != "" {
			t.Errorf("Order (-want +got):\n%s", diff)
		}
	}
}

func TestOrderOnCyclicGraphReturnsAcyclicPart(t *testing.T) {
	// a <-> b is a cycle; c depends on a; d and e are free of it.
	g := build(t, []string{"a", "b", "c", "d", "e"}, [][2]string{{"a", "b"}, {"b", "a"}, {"c", "a"}, {"e", "d"}})
	if diff := cmp.Diff([]string{"d", "e"}, namesOf(g, g.Order())); diff != "" {
		t.Errorf("Order (-want +got):\n%s", diff)
	}
}

func TestSubgraphKeepsEdgesBetweenKeptVertices(t *testing.T) {
	g := New([]string{"a", "b", "c", "d"})
	g.AddEdge(1, 0) // b -> a
	g.AddEdge(2, 1) // c -> b
	g.AddEdge(3, 2) // d -> c
	s := g.Subgraph([]bool{true, true, false, true})
	if s.Len() != 3 || s.Name(2) != "d" {
		t.Fatalf("got %d vertices, last %q", s.Len(), s.Name(2))
	}
	if !s.HasEdge(1, 0) {
		t.Error("edge b -> a lost")
	}
	if len(s.Deps(2)) != 0 {
		t.Errorf("d kept an edge to a dropped vertex: %v", s.Deps(2))
	}
}
