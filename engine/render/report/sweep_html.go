package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/kilnbuild/kiln/engine/metrics"
	"github.com/kilnbuild/kiln/engine/render"
)

// sweepColours tell the compared runs apart; sweepDashes the metrics of a
// group on one chart (train solid, validation dashed).
var (
	sweepColours = []string{"#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#4b5563", "#ca8a04"}
	sweepDashes  = []string{"", "6 3", "2 2", "8 3 2 3"}
)

// sweepCSS styles the runs table and the compare charts.
const sweepCSS = `.runs td.failed{color:#7f1d1d;font-weight:600}.runs td.complete{color:#14532d}` +
	`.sweep path.line{fill:none;stroke-width:1.6}.sweep .legend{font-size:11px;margin:2px 0}.sweep .legend span{margin-right:10px;white-space:nowrap}`

func finiteValue(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// runsSection writes the table of the runs compared: per run its label,
// the variables that differ, each node's outcome, and each metric's final
// and best value.
func (m *model) runsSection(b *strings.Builder) {
	b.WriteString(`<table class="runs"><thead><tr><th>run</th><th>status</th><th>differs</th><th>changed</th><th>nodes</th><th>metrics (final, best)</th></tr></thead><tbody>`)
	for _, sr := range m.o.Runs {
		s := sr.Summary
		var outcomes, ms []string
		for _, n := range s.Nodes {
			outcomes = append(outcomes, n.Addr+" "+outcomeWord(n.Outcome))
			for _, x := range n.Metrics {
				ms = append(ms, fmt.Sprintf("%s %s %s (best %s)", n.Addr, x.Key, ptrText(x.Final), ptrText(x.Best)))
			}
		}
		fmt.Fprintf(b, `<tr data-run="%d"><td>%d</td><td class="%s">%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>`,
			s.ID, s.ID, esc(string(s.Status)), esc(string(s.Status)), esc(runLabel(s)), esc(strings.Join(s.Changed, "; ")), esc(strings.Join(outcomes, ", ")), esc(strings.Join(ms, "; ")))
	}
	b.WriteString(`</tbody></table>`)
}

func outcomeWord(o string) string {
	if o == "" {
		return "not run"
	}
	return o
}

func ptrText(v *float64) string {
	if v == nil {
		return "NaN"
	}
	return numberText(*v)
}

// sweepSection writes, per node, one chart per metric group with a line
// per compared run and metric, labelled by what differs.
func (m *model) sweepSection(b *strings.Builder) error {
	nodes, charts, err := sweepCharts(m.o.Runs, m.o.Smooth)
	if err != nil {
		return err
	}
	if len(nodes) == 0 {
		b.WriteString(`<p class="hint">None of the compared runs logged metrics.</p>`)
		return nil
	}
	if m.o.Smooth > 0 {
		fmt.Fprintf(b, `<p class="hint">Smoothed: exponential moving average, weight %s.</p>`, esc(numberText(m.o.Smooth)))
	}
	for _, addr := range nodes {
		fmt.Fprintf(b, `<h3>%s</h3><div class="charts">`, esc(addr))
		groups := charts[addr]
		names := make([]string, 0, len(groups))
		for g := range groups {
			names = append(names, g)
		}
		slices.Sort(names)
		for _, g := range names {
			b.WriteString(`<figure class="sweep">`)
			fmt.Fprintf(b, `<figcaption><span class="key">%s</span></figcaption>`, esc(g))
			sweepChart(b, addr, g, groups[g])
			b.WriteString(`<div class="legend">`)
			for _, l := range groups[g] {
				fmt.Fprintf(b, `<span><svg width="22" height="10"><line x1="0" y1="5" x2="22" y2="5" stroke="%s" stroke-width="2" stroke-dasharray="%s"/></svg>%s</span>`,
					sweepColours[l.run%len(sweepColours)], sweepDashes[l.key%len(sweepDashes)], esc(l.label))
			}
			b.WriteString(`</div></figure>`)
		}
		b.WriteString(`</div>`)
	}
	return nil
}

// sweepChart draws the lines of one metric group, step on x.
func sweepChart(b *strings.Builder, addr, group string, lines []sweepLine) {
	series := make([][]metrics.Point, len(lines))
	for i, l := range lines {
		series[i] = l.pts
	}
	sc, ok := scaleOf(series...)
	if !ok {
		return
	}
	xlo, xhi, yticks, px, py := sc.xlo, sc.xhi, sc.yticks, sc.px, sc.py
	pw, ph := float64(chW-chLeft-chRight), float64(chH-chTop-chBot)
	fmt.Fprintf(b, `<svg class="chart sweep" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" data-node="%s" data-group="%s" data-lines="%d">`,
		chW, chH, chW, chH, esc(addr), esc(group), len(lines))
	for _, t := range yticks {
		y := py(t)
		fmt.Fprintf(b, `<line class="grid" x1="%d" y1="%.1f" x2="%d" y2="%.1f"/><text class="ytick" x="%d" y="%.1f">%s</text>`, chLeft, y, chW-chRight, y, chLeft-4, y+3, esc(numberText(t)))
	}
	for _, t := range niceTicks(xlo, xhi, 5) {
		if t == math.Trunc(t) && t >= xlo && t <= xhi {
			fmt.Fprintf(b, `<text class="xtick" x="%.1f" y="%d">%s</text>`, px(t), chH-8, strconv.FormatFloat(t, 'f', -1, 64))
		}
	}
	fmt.Fprintf(b, `<rect class="frame" x="%d" y="%d" width="%.0f" height="%.0f"/>`, chLeft, chTop, pw, ph)
	for _, l := range lines {
		fmt.Fprintf(b, `<path class="line" data-label="%s" data-points="%d" stroke="%s" stroke-dasharray="%s" d="%s"><title>%s</title></path>`,
			esc(l.label), len(l.pts), sweepColours[l.run%len(sweepColours)], sweepDashes[l.key%len(sweepDashes)], pathData(l.pts, px, py), esc(l.label))
	}
	b.WriteString(`</svg>`)
}

func pathData(pts []metrics.Point, px, py func(float64) float64) string {
	var d strings.Builder
	pen := false
	for _, p := range reduce(pts, chW-chLeft-chRight) {
		if !finiteValue(p.Value) {
			pen = false
			continue
		}
		cmd := "L"
		if !pen {
			cmd = "M"
		}
		fmt.Fprintf(&d, "%s%.1f,%.1f ", cmd, px(float64(p.Step)), py(p.Value))
		pen = true
	}
	return strings.TrimSpace(d.String())
}

// sweepMarkdown writes the runs table for a pull request.
func sweepMarkdown(b *strings.Builder, runs []SweepRun) {
	b.WriteString("\n### Runs\n\n| run | status | differs | metrics (final, best) |\n|---:|---|---|---|\n")
	for _, sr := range runs {
		s := sr.Summary
		var ms []string
		for _, n := range s.Nodes {
			for _, x := range n.Metrics {
				ms = append(ms, fmt.Sprintf("%s %s %s (best %s)", n.Addr, x.Key, ptrText(x.Final), ptrText(x.Best)))
			}
		}
		fmt.Fprintf(b, "| %d | %s | %s | %s |\n", s.ID, s.Status, render.MarkdownText(runLabel(s)), render.MarkdownText(strings.Join(ms, "; ")))
	}
}
