package report

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// DAG geometry, in CSS pixels.
const (
	dagBoxH   = 24
	dagRowGap = 10
	dagColGap = 56
	dagMargin = 10
	dagMaxW   = 240
	dagCharW  = 7
)

// dagNode is a drawn node's place.
type dagNode struct {
	w       *row
	layer   int
	order   float64
	x, y, W float64
	label   string
}

// dag writes the graph of the drawn nodes as a layered SVG, dependencies
// left of their dependents, each node a link to its row in the table.
func (m *model) dag(b *strings.Builder) {
	nodes := map[int]*dagNode{}
	var list []*dagNode
	for _, w := range m.rows { // dependency order: deps come first
		if !w.drawn {
			continue
		}
		d := &dagNode{w: w}
		for _, dep := range w.n.Deps {
			if p, ok := nodes[dep]; ok && p.layer+1 > d.layer {
				d.layer = p.layer + 1
			}
		}
		d.label = w.symbol + " " + w.n.Addr
		if w.symbol == "" {
			d.label = w.n.Addr
		}
		if utf8.RuneCountInString(d.label) > (dagMaxW-16)/dagCharW {
			r := []rune(d.label)
			d.label = string(r[:(dagMaxW-16)/dagCharW-1]) + "…"
		}
		d.W = float64(min(dagMaxW, utf8.RuneCountInString(d.label)*dagCharW+16))
		nodes[w.i] = d
		list = append(list, d)
	}
	layers := orderLayers(list, nodes)
	// Place: each layer a column as wide as its widest box, centred
	// vertically.
	maxRows := 0
	for _, layer := range layers {
		maxRows = max(maxRows, len(layer))
	}
	x := float64(dagMargin)
	for _, layer := range layers {
		colW := 0.0
		top := float64(dagMargin) + float64((maxRows-len(layer))*(dagBoxH+dagRowGap))/2
		for k, d := range layer {
			d.x, d.y = x, top+float64(k*(dagBoxH+dagRowGap))
			colW = max(colW, d.W)
		}
		x += colW + dagColGap
	}
	width := int(x - dagColGap + dagMargin)
	height := dagMargin*2 + maxRows*(dagBoxH+dagRowGap)
	// A graph up to twice the page's width is scaled to fit; a wider one
	// scrolls, so that its text stays readable.
	fit := ""
	if width <= 2200 {
		fit = " fit"
	}
	fmt.Fprintf(b, `<svg class="dag%s" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="graph of run %d">`,
		fit, width, height, width, height, m.run.ID)
	b.WriteString(`<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" markerUnits="userSpaceOnUse" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#9ca3af"/></marker>` +
		`<marker id="arrow-crit" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" markerUnits="userSpaceOnUse" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#111827"/></marker></defs>`)
	onPath := map[[2]int]bool{}
	for k := 1; k < len(m.critical); k++ {
		onPath[[2]int{m.critical[k-1], m.critical[k]}] = true
	}
	for _, d := range list {
		for _, dep := range d.w.n.Deps {
			p, ok := nodes[dep]
			if !ok {
				continue
			}
			x1, y1 := p.x+p.W, p.y+dagBoxH/2
			x2, y2 := d.x-2, d.y+dagBoxH/2
			mid := (x1 + x2) / 2
			cls, marker := "edge", "arrow"
			if onPath[[2]int{dep, d.w.i}] {
				cls, marker = "edge crit", "arrow-crit"
			}
			fmt.Fprintf(b, `<path class="%s" d="M%.1f,%.1f C%.1f,%.1f %.1f,%.1f %.1f,%.1f" marker-end="url(#%s)"/>`, cls, x1, y1, mid, y1, mid, y2, x2, y2, marker)
		}
	}
	for _, d := range list {
		crit := ""
		if d.w.critical {
			crit = " crit"
		}
		fmt.Fprintf(b, `<a href="#node-%d"><g class="dnode" data-node="%s"><rect class="box %s%s" x="%.1f" y="%.1f" width="%.1f" height="%d" rx="4"/><text x="%.1f" y="%.1f">%s</text><title>%s</title></g></a>`,
			d.w.i, esc(d.w.n.Addr), d.w.class, crit, d.x, d.y, d.W, dagBoxH, d.x+8, d.y+dagBoxH/2+4, esc(d.label), esc(barTitle(d.w)))
	}
	b.WriteString(`</svg>`)
}

// orderLayers groups nodes by layer and orders each layer to keep edges
// short: a few sweeps of the barycenter heuristic, down using
// dependencies, then up using dependents; ties keep dependency order, so
// the picture is the same for the same run.
func orderLayers(list []*dagNode, nodes map[int]*dagNode) [][]*dagNode {
	var layers [][]*dagNode
	for _, d := range list {
		for len(layers) <= d.layer {
			layers = append(layers, nil)
		}
		d.order = float64(len(layers[d.layer]))
		layers[d.layer] = append(layers[d.layer], d)
	}
	dependents := map[int][]*dagNode{}
	for _, d := range list {
		for _, dep := range d.w.n.Deps {
			if _, ok := nodes[dep]; ok {
				dependents[dep] = append(dependents[dep], d)
			}
		}
	}
	reorder := func(layer []*dagNode, neighbours func(*dagNode) []*dagNode) {
		keys := make(map[*dagNode]float64, len(layer))
		for _, d := range layer {
			keys[d] = d.order
			if ns := neighbours(d); len(ns) > 0 {
				sum := 0.0
				for _, n := range ns {
					sum += n.order
				}
				keys[d] = sum / float64(len(ns))
			}
		}
		sort.SliceStable(layer, func(a, b int) bool { return keys[layer[a]] < keys[layer[b]] })
		for k, d := range layer {
			d.order = float64(k)
		}
	}
	deps := func(d *dagNode) []*dagNode {
		var out []*dagNode
		for _, dep := range d.w.n.Deps {
			if p, ok := nodes[dep]; ok {
				out = append(out, p)
			}
		}
		return out
	}
	for range 4 {
		for l := 1; l < len(layers); l++ {
			reorder(layers[l], deps)
		}
		for l := len(layers) - 2; l >= 0; l-- {
			reorder(layers[l], func(d *dagNode) []*dagNode { return dependents[d.w.i] })
		}
	}
	return layers
}
