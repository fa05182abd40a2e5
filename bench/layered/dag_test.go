package layered

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNewShape(t *testing.T) {
	for _, tc := range []struct {
		name   string
		p      Params
		widths []int
	}{
		{"square", Params{N: 9}, []int{3, 3, 3}},
		{"ten thousand", Params{N: 10000}, repeat(100, 100)},
		{"last layer holds the rest", Params{N: 10, Layers: 4}, []int{3, 3, 3, 1}},
		{"fewer layers than asked when widths round up", Params{N: 10, Layers: 6}, []int{2, 2, 2, 2, 2}},
		{"one node", Params{N: 1}, []int{1}},
		{"a chain", Params{N: 4, Layers: 4}, []int{1, 1, 1, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := New(tc.p)
			if err != nil {
				t.Fatal(err)
			}
			var widths []int
			for _, l := range d.Layers {
				widths = append(widths, len(l))
			}
			if diff := cmp.Diff(tc.widths, widths); diff != "" {
				t.Errorf("layer widths (-want +got):\n%s", diff)
			}
			if d.Len() != tc.p.N {
				t.Errorf("Len() = %d, want %d", d.Len(), tc.p.N)
			}
			if d.Params.Layers != len(d.Layers) {
				t.Errorf("Params.Layers = %d, want the real count %d", d.Params.Layers, len(d.Layers))
			}
		})
	}
}

func TestNewRefusesBadParams(t *testing.T) {
	for _, p := range []Params{{N: 0}, {N: -3}, {N: 5, Layers: 6}, {N: 5, Layers: -1}} {
		if _, err := New(p); err == nil {
			t.Errorf("New(%+v) succeeded, want an error", p)
		}
	}
}

func TestNewEdges(t *testing.T) {
	d, err := New(Params{N: 2000, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	counts := map[int]int{}
	for l, layer := range d.Layers {
		for k, n := range layer {
			if n.Layer != l || n.Index != k {
				t.Fatalf("node at (%d, %d) says it is at (%d, %d)", l, k, n.Layer, n.Index)
			}
			if l == 0 {
				if len(n.Deps) != 0 {
					t.Errorf("%s: layer 0 has deps %v", n.Name(), n.Deps)
				}
				continue
			}
			counts[len(n.Deps)]++
			for i, dep := range n.Deps {
				if dep < 0 || dep >= len(d.Layers[l-1]) {
					t.Errorf("%s: dep %d is outside the previous layer", n.Name(), dep)
				}
				if i > 0 && dep <= n.Deps[i-1] {
					t.Errorf("%s: deps %v are not distinct and ascending", n.Name(), n.Deps)
				}
			}
		}
	}
	for c := 1; c <= 3; c++ {
		if counts[c] == 0 {
			t.Errorf("no node has %d deps: %v", c, counts)
		}
	}
	if len(counts) != 3 {
		t.Errorf("dep counts %v, want only 1, 2 and 3", counts)
	}
}

func TestNewIsDeterministic(t *testing.T) {
	a, _ := New(Params{N: 500, Seed: 3})
	b, _ := New(Params{N: 500, Seed: 3})
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("same params gave different DAGs (-first +second):\n%s", diff)
	}
	c, _ := New(Params{N: 500, Seed: 4})
	if cmp.Equal(a.Layers, c.Layers) {
		t.Error("seeds 3 and 4 gave the same edges")
	}
}

func repeat(v, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = v
	}
	return out
}
