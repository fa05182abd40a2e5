package layered

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// Params say which DAG to generate.
type Params struct {
	N      int    // number of nodes
	Layers int    // number of layers; 0 means round(sqrt(N))
	Seed   uint64 // picks the edges
}

// Node is one exec node: it lives at (Layer, Index) and reads the nodes of
// the previous layer listed in Deps (indexes within that layer).
type Node struct {
	Layer, Index int
	Deps         []int
}

// Name is the node's name in every tool: n_LAYER_INDEX.
func (n Node) Name() string { return Name(n.Layer, n.Index) }

// Name names the node at (layer, index).
func Name(layer, index int) string { return fmt.Sprintf("n_%d_%d", layer, index) }

// DAG is a layered DAG; Layers[l][k] is node k of layer l.
type DAG struct {
	Params Params
	Layers [][]Node
}

// Len is the number of nodes.
func (d *DAG) Len() int {
	n := 0
	for _, l := range d.Layers {
		n += len(l)
	}
	return n
}

// Edges is the number of dependency edges.
func (d *DAG) Edges() int {
	e := 0
	for _, l := range d.Layers {
		for _, n := range l {
			e += len(n.Deps)
		}
	}
	return e
}

// New generates the DAG for p. Layers hold ceil(N/Layers) nodes each, the
// last one what is left.
func New(p Params) (*DAG, error) {
	if p.N < 1 {
		return nil, errors.New("the DAG needs at least one node (set -n to 1 or more)")
	}
	if p.Layers == 0 {
		p.Layers = max(1, int(math.Round(math.Sqrt(float64(p.N)))))
	}
	if p.Layers < 1 || p.Layers > p.N {
		return nil, fmt.Errorf("-layers %d: it must be between 1 and the number of nodes, %d", p.Layers, p.N)
	}
	width := (p.N + p.Layers - 1) / p.Layers
	rng := rand.New(rand.NewPCG(p.Seed, 0x6b696c6e)) // "kiln"
	d := &DAG{Params: p}
	left := p.N
	for l := 0; left > 0; l++ {
		layer := make([]Node, min(width, left))
		left -= len(layer)
		for k := range layer {
			layer[k] = Node{Layer: l, Index: k}
			if l > 0 {
				layer[k].Deps = pick(rng, len(d.Layers[l-1]))
			}
		}
		d.Layers = append(d.Layers, layer)
	}
	d.Params.Layers = len(d.Layers)
	return d, nil
}

// pick returns 1 to 3 distinct indexes below width, ascending.
func pick(rng *rand.Rand, width int) []int {
	want := min(1+rng.IntN(3), width)
	seen := make(map[int]bool, want)
	for len(seen) < want {
		seen[rng.IntN(width)] = true
	}
	out := make([]int, 0, want)
	for i := 0; i < width && len(out) < want; i++ {
		if seen[i] {
			out = append(out, i)
		}
	}
	return out
}
