package peers

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	dgraph "github.com/dominikbraun/graph"
	"github.com/dominikbraun/graph/draw"
	"github.com/kilnbuild/kiln/engine/graph"
)

const vertices, edges = 10_000, 30_000

// randomEdges are 30,000 distinct edges over 10,000 vertices, the same for
// every run (cycles included), as engine/graph's own benchmarks use.
func randomEdges() (names []string, pairs [][2]int) {
	r := rand.New(rand.NewPCG(1, 2))
	names = make([]string, vertices)
	for i := range names {
		names[i] = fmt.Sprintf("exec.step_%d", r.IntN(1_000_000)*vertices+i)
	}
	seen := map[[2]int]bool{}
	for len(pairs) < edges {
		p := [2]int{r.IntN(vertices), r.IntN(vertices)}
		if !seen[p] {
			seen[p] = true
			pairs = append(pairs, p)
		}
	}
	return names, pairs
}

func kilnGraph(names []string, pairs [][2]int) *graph.Graph {
	g := graph.New(names)
	for _, p := range pairs {
		g.AddEdge(p[0], p[1])
	}
	return g
}

func libraryGraph(b testing.TB, pairs [][2]int) dgraph.Graph[int, int] {
	g := dgraph.New(dgraph.IntHash, dgraph.Directed())
	for v := range vertices {
		if err := g.AddVertex(v); err != nil {
			b.Fatal(err)
		}
	}
	for _, p := range pairs {
		if err := g.AddEdge(p[0], p[1]); err != nil {
			b.Fatal(err)
		}
	}
	return g
}

// BenchmarkCycles: kiln's Tarjan with the reported cycle paths, against the
// library's strongly connected components alone; each with and without
// building its graph.
func BenchmarkCycles(b *testing.B) {
	names, pairs := randomEdges()
	b.Run("kiln", func(b *testing.B) {
		g := kilnGraph(names, pairs)
		for b.Loop() {
			g.Cycles()
		}
	})
	b.Run("kiln+build", func(b *testing.B) {
		for b.Loop() {
			kilnGraph(names, pairs).Cycles()
		}
	})
	b.Run("library", func(b *testing.B) {
		g := libraryGraph(b, pairs)
		for b.Loop() {
			if _, err := dgraph.StronglyConnectedComponents(g); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("library+build", func(b *testing.B) {
		for b.Loop() {
			if _, err := dgraph.StronglyConnectedComponents(libraryGraph(b, pairs)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestLibraryDOTFollowsMapOrder: the same graph drawn twice by the library
// comes out in different orders, where kiln graph must print the same
// picture every time.
func TestLibraryDOTFollowsMapOrder(t *testing.T) {
	_, pairs := randomEdges()
	g := libraryGraph(t, pairs[:200])
	var first bytes.Buffer
	if err := draw.DOT(g, &first); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		var again bytes.Buffer
		if err := draw.DOT(g, &again); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first.Bytes(), again.Bytes()) {
			return
		}
	}
	t.Error("the library drew the same graph the same way six times: its DOT output may be deterministic now; engine/graph's doc and README say otherwise")
}
