package graph

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// largeGraph returns 10,000 vertices and 30,000 distinct edges. With acyclic
// set, edges only point to lower-numbered vertices.
func largeGraph(acyclic bool) *Graph {
	const n, e = 10_000, 30_000
	r := rand.New(rand.NewPCG(1, 2))
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("exec.step_%d", r.IntN(1_000_000)*n+i)
	}
	g := New(names)
	for len(g.edges) < e {
		a, b := r.IntN(n), r.IntN(n)
		if acyclic {
			if a == b {
				continue
			}
			a, b = max(a, b), min(a, b)
		}
		g.AddEdge(a, b)
	}
	return g
}

func BenchmarkBuild10k(b *testing.B) {
	for b.Loop() {
		largeGraph(true)
	}
}

func BenchmarkOrder10k(b *testing.B) {
	g := largeGraph(true)
	for b.Loop() {
		if len(g.Order()) != g.Len() {
			b.Fatal("Order lost vertices on a DAG")
		}
	}
}

func BenchmarkCycles10kAcyclic(b *testing.B) {
	g := largeGraph(true)
	for b.Loop() {
		if len(g.Cycles()) != 0 {
			b.Fatal("cycles found in a DAG")
		}
	}
}

func BenchmarkCycles10kCyclic(b *testing.B) {
	g := largeGraph(false)
	for b.Loop() {
		g.Cycles()
	}
}

func BenchmarkClosure10k(b *testing.B) {
	g := largeGraph(true)
	for b.Loop() {
		g.Closure([]int{g.Len() - 1})
	}
}

func BenchmarkDOT10k(b *testing.B) {
	g := largeGraph(true)
	for b.Loop() {
		g.DOT(nil)
	}
}
