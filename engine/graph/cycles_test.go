package graph

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func cycleNames(g *Graph) [][]string {
	var out [][]string
	for _, c := range g.Cycles() {
		out = append(out, namesOf(g, c))
	}
	return out
}

func TestCycles(t *testing.T) {
	tests := []struct {
		name  string
		names []string
		edges [][2]string
		want  [][]string
	}{
		{
			name:  "dag",
			names: []string{"a", "b", "c"},
			edges: [][2]string{{"a", "b"}, {"b", "c"}, {"a", "c"}},
			want:  nil,
		},
		{
			name:  "self-loop",
			names: []string{"exec.x", "exec.y"},
			edges: [][2]string{{"exec.x", "exec.x"}, {"exec.y", "exec.x"}},
			want:  [][]string{{"exec.x"}},
		},
		{
			name:  "triangle rotated to smallest name",
			names: []string{"exec.c", "exec.b", "exec.a"},
			// c -> a -> b -> c
			edges: [][2]string{{"exec.c", "exec.a"}, {"exec.a", "exec.b"}, {"exec.b", "exec.c"}},
			want:  [][]string{{"exec.a", "exec.b", "exec.c"}},
		},
		{
			name: "several components and self-loops",
			names: []string{
				"fetch.w", "exec.p", "exec.q", "exec.r", "git_repo.k", "git_repo.j",
				"service.s", "exec.free", "host.h",
			},
			edges: [][2]string{
				// p -> q -> r -> p, with a chord q -> p; r loops on itself
				{"exec.p", "exec.q"}, {"exec.q", "exec.r"}, {"exec.r", "exec.p"}, {"exec.q", "exec.p"}, {"exec.r", "exec.r"},
				// k <-> j
				{"git_repo.k", "git_repo.j"}, {"git_repo.j", "git_repo.k"},
				// service.s alone on a self-loop, depending on the k/j cycle
				{"service.s", "service.s"}, {"service.s", "git_repo.k"},
				// acyclic parts
				{"exec.free", "fetch.w"}, {"host.h", "exec.free"}, {"exec.p", "fetch.w"},
			},
			want: [][]string{
				{"exec.p", "exec.q"}, // shortest way back to exec.p
				{"exec.r"},
				{"git_repo.j", "git_repo.k"},
				{"service.s"},
			},
		},
		{
			name:  "shortest cycle through the smallest name",
			names: []string{"a", "b", "c", "d"},
			// a -> b -> c -> d -> a and a -> c: shortest from a is a, c, d
			edges: [][2]string{{"a", "b"}, {"b", "c"}, {"c", "d"}, {"d", "a"}, {"a", "c"}},
			want:  [][]string{{"a", "c", "d"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := build(t, tt.names, tt.edges)
			if diff := cmp.Diff(tt.want, cycleNames(g)); diff != "" {
				t.Errorf("Cycles (-want +got):\n%s", diff)
			}
			// Reversed vertex numbering and edge order give the same answer.
			names := slices.Clone(tt.names)
			slices.Reverse(names)
			edges := slices.Clone(tt.edges)
			slices.Reverse(edges)
			if diff := cmp.Diff(tt.want, cycleNames(build(t, names, edges))); diff != "" {
				t.Errorf("Cycles after renumbering (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCyclesMatchMutualReachability checks Cycles on random graphs against a
// slow, obviously right definition: u and v share a component when each
// reaches the other.
func TestCyclesMatchMutualReachability(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for trial := range 100 {
		n := 1 + r.IntN(40)
		names := make([]string, n)
		for i := range names {
			names[i] = string(rune('A'+r.IntN(26))) + string(rune('a'+i%26)) + string(rune('0'+i/26))
		}
		g := New(names)
		for range r.IntN(2 * n) {
			g.AddEdge(r.IntN(n), r.IntN(n))
		}
		reach := make([][]bool, n)
		for v := range n {
			reach[v] = g.Closure(g.deps[v])
		}
		// Expected: the smallest-named member of every component of two or
		// more vertices, and every self-loop.
		var wantStarts []string
		for v := range n {
			if g.HasEdge(v, v) {
				wantStarts = append(wantStarts, "self "+names[v])
			}
			smallest, size := v, 0
			for w := range n {
				if reach[v][w] && reach[w][v] {
					size++
					if g.rank[w] < g.rank[smallest] {
						smallest = w
					}
				}
			}
			if size > 1 && smallest == v {
				wantStarts = append(wantStarts, "scc "+names[v])
			}
		}
		var gotStarts []string
		for _, c := range g.Cycles() {
			for i, v := range c {
				next := c[(i+1)%len(c)]
				if !g.HasEdge(v, next) {
					t.Fatalf("trial %d: cycle %v is not a path: no edge %s -> %s", trial, namesOf(g, c), names[v], names[next])
				}
				if i > 0 && g.rank[v] < g.rank[c[0]] {
					t.Fatalf("trial %d: cycle %v does not start at its smallest name", trial, namesOf(g, c))
				}
			}
			if len(c) == 1 {
				gotStarts = append(gotStarts, "self "+names[c[0]])
			} else {
				gotStarts = append(gotStarts, "scc "+names[c[0]])
			}
		}
		slices.Sort(wantStarts)
		slices.Sort(gotStarts)
		if diff := cmp.Diff(wantStarts, gotStarts); diff != "" {
			t.Fatalf("trial %d: cycles found (-want +got):\n%s", trial, diff)
		}
		if again := g.Cycles(); !cmp.Equal(again, g.Cycles()) {
			t.Fatalf("trial %d: Cycles is not deterministic", trial)
		}
	}
}
