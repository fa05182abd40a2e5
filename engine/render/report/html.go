package report

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/kilnbuild/kiln/engine/history"
	"github.com/kilnbuild/kiln/engine/human"
	"github.com/kilnbuild/kiln/engine/metrics"
	"github.com/kilnbuild/kiln/engine/render/palette"
)

// HTML writes the report as one self-contained page.
func HTML(w io.Writer, o Options) error {
	m, err := build(o)
	if err != nil {
		return err
	}
	var b strings.Builder
	r := m.run
	title := fmt.Sprintf("kiln run %d", r.ID)
	fmt.Fprintf(&b, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"+
		"<meta name=\"generator\" content=\"kiln %s\"><title>%s</title><style>%s</style></head><body>\n", esc(r.Version), esc(title), stylesheet())
	m.header(&b)
	b.WriteString(`<nav><a href="#timeline">Timeline</a><a href="#nodes">Nodes</a><a href="#graph">Graph</a><a href="#metrics">Metrics</a>`)
	if len(o.Runs) > 0 {
		b.WriteString(`<a href="#runs">Runs</a>`)
	}
	b.WriteString(`</nav>`)

	b.WriteString("\n<section id=\"timeline\"><h2>Timeline</h2>")
	b.WriteString(`<p class="hint">Each bar is a node's run, coloured by its action, from when its command began to when it ended; before it, hatched, the time it waited for a slot or resources after its dependencies finished, and lighter, its turn before its command began. <b>Outlined</b>: the critical path, the chain that decided when the run ended.</p>`)
	m.legend(&b)
	b.WriteString(`<div class="scroll">`)
	m.timeline(&b)
	b.WriteString(`</div>`)
	if m.hidden > 0 {
		fmt.Fprintf(&b, `<p class="hint">%d nodes that were up to date are left off the timeline and the graph; the table lists them.</p>`, m.hidden)
	}
	if len(m.critical) > 1 {
		var names []string
		for _, i := range m.critical {
			names = append(names, fmt.Sprintf(`<a href="#node-%d">%s</a>`, i, esc(r.Nodes[i].Addr)))
		}
		fmt.Fprintf(&b, `<p class="critical">Critical path: %s</p>`, strings.Join(names, " → "))
	}
	b.WriteString("</section>\n<section id=\"nodes\"><h2>Nodes</h2>")
	m.table(&b)
	b.WriteString("</section>\n<section id=\"graph\"><h2>Graph</h2><div class=\"scroll\">")
	m.dag(&b)
	b.WriteString("</div></section>\n<section id=\"metrics\"><h2>Metrics</h2>")
	m.metricsSection(&b)
	b.WriteString("</section>\n")
	if len(o.Runs) > 0 {
		b.WriteString("<section id=\"runs\"><h2>Runs</h2>")
		m.runsSection(&b)
		if err := m.sweepSection(&b); err != nil {
			return err
		}
		b.WriteString("</section>\n")
	}
	b.WriteString("</body></html>\n")
	_, err = io.WriteString(w, b.String())
	return err
}

func (m *model) header(b *strings.Builder) {
	r := m.run
	fmt.Fprintf(b, `<header><h1>kiln run %d <span class="status %s">%s</span></h1>`, r.ID, r.Label(), r.Label())
	took := m.end.Sub(m.start)
	facts := []string{
		"started " + r.Started.UTC().Format("2006-01-02 15:04:05 UTC"),
		"took " + durationText(took),
	}
	if r.Status == history.Running {
		facts[1] = "running for " + durationText(took)
	}
	if r.Host != "" {
		facts = append(facts, "host "+r.Host)
	}
	if r.Version != "" {
		facts = append(facts, "kiln "+r.Version)
	}
	if m.o.Compare != nil {
		facts = append(facts, fmt.Sprintf("compared with run %d (dashed)", m.o.Compare.ID))
	}
	fmt.Fprintf(b, `<p class="facts">%s</p>`, esc(strings.Join(facts, " · ")))
	if r.Command != "" {
		fmt.Fprintf(b, `<p class="facts"><code>%s</code></p>`, esc(r.Command))
	}
	if v := varsText(r); v != "" {
		fmt.Fprintf(b, `<p class="facts vars">variables: %s</p>`, esc(v))
	}
	b.WriteString(`<ul class="summary">`)
	fmt.Fprintf(b, `<li><b>%d</b> nodes</li>`, len(r.Nodes))
	for _, o := range outcomeOrder {
		if n := m.counts[o]; n > 0 {
			fmt.Fprintf(b, `<li><b>%d</b> %s</li>`, n, esc(o))
		}
	}
	if m.npuHours > 0 {
		fmt.Fprintf(b, `<li><b>%s</b> NPU-hours</li>`, esc(npuText(m.npuHours)))
	}
	if m.hashed > 0 {
		fmt.Fprintf(b, `<li><b>%s</b> hashed</li>`, esc(human.Bytes(m.hashed)))
	}
	b.WriteString(`</ul></header>`)
}

// outcomeOrder is the order outcomes are counted in.
var outcomeOrder = []string{"built", "started", "restored", "up-to-date", "failed", "skipped", "cancelled", "running", "pending", "interrupted", "not run"}

// legend names the colours used.
func (m *model) legend(b *strings.Builder) {
	used := map[string]bool{}
	batch := false
	for _, w := range m.rows {
		used[w.class] = true
		batch = batch || w.pending > 0
	}
	b.WriteString(`<p class="legend">`)
	for _, c := range classOrder {
		if used[c] {
			fmt.Fprintf(b, `<span><svg width="14" height="12"><rect class="bar %s" width="14" height="12" rx="2"/></svg>%s</span>`, c, classWords[c])
		}
	}
	b.WriteString(`<span><svg width="14" height="12"><rect class="queue" width="14" height="12"/></svg>queued for a slot or resources</span>`)
	if batch {
		b.WriteString(`<span><svg width="14" height="12"><rect class="queue batch" width="14" height="12"/></svg>submitted and pending in a batch queue (Slurm)</span>`)
	}
	b.WriteString(`<span><svg width="14" height="12"><rect class="prep create" width="14" height="12"/></svg>its turn before its command: deciding, hashing inputs, preparing</span></p>`)
}

var classOrder = []string{"create", "rebuild", "repair", "restore", "start", "noop", "running", "pending", "failed", "skipped"}

var classWords = map[string]string{
	"create": "create", "rebuild": "rebuild", "repair": "repair", "restore": "restore", "start": "start",
	"noop": "up to date", "running": "running", "pending": "pending", "failed": "failed", "skipped": "skipped or not run",
}

// table writes one row per node, in dependency order.
func (m *model) table(b *strings.Builder) {
	cmp := m.o.Compare != nil
	b.WriteString(`<table class="nodes"><thead><tr><th>node</th><th>action</th><th>outcome</th><th>why</th><th class="num">queued</th><th class="num">ran</th>`)
	if cmp {
		fmt.Fprintf(b, `<th class="num">run %d</th>`, m.o.Compare.ID)
	}
	b.WriteString(`<th class="num">NPU-h</th><th>cache</th><th>resources</th><th class="num">hashed</th><th>log</th></tr></thead><tbody>`)
	for _, w := range m.rows {
		crit := ""
		if w.critical {
			crit = ` class="crit"`
		}
		fmt.Fprintf(b, `<tr id="node-%d"%s><td class="addr">%s</td>`, w.i, crit, esc(w.n.Addr))
		if w.action == "" {
			b.WriteString(`<td></td>`)
		} else {
			fmt.Fprintf(b, `<td><span class="chip %s">%s</span></td>`, w.class, esc(strings.TrimSpace(w.symbol+" "+w.action)))
		}
		outcome := w.outcome
		if w.n.ExitCode != nil && *w.n.ExitCode != 0 {
			outcome += fmt.Sprintf(" (exit %d)", *w.n.ExitCode)
		}
		if w.n.Attempts > 1 {
			outcome += fmt.Sprintf(", %d attempts", w.n.Attempts)
		}
		fmt.Fprintf(b, `<td>%s</td>`, esc(outcome))
		b.WriteString(`<td class="why">`)
		for k, y := range w.why {
			if k > 0 {
				b.WriteString("<br>")
			}
			b.WriteString(esc(y))
		}
		b.WriteString(`</td>`)
		fmt.Fprintf(b, `<td class="num">%s</td><td class="num">%s</td>`, optDuration(w.waited()), ranText(w))
		if cmp {
			b.WriteString(`<td class="num">`)
			if w.compare != nil {
				b.WriteString(esc(compareText(w)))
			}
			b.WriteString(`</td>`)
		}
		npu := npuText(w.npuHours)
		fmt.Fprintf(b, `<td class="num">%s</td><td>%s</td><td>%s</td><td class="num">%s</td>`, npu, esc(w.cache), esc(resourcesText(w.n)), esc(hashedText(w.n.BytesHashed)))
		if w.log != "" {
			fmt.Fprintf(b, `<td><a href="%s">log</a></td>`, esc(w.log))
		} else {
			b.WriteString(`<td></td>`)
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString(`</tbody></table>`)
}

func optDuration(d time.Duration) string {
	if d < time.Millisecond {
		return ""
	}
	return durationText(d)
}

func ranText(w *row) string {
	if w.began.IsZero() && w.outcome != "restored" {
		return ""
	}
	return durationText(w.ran)
}

// compareText is the compared run's duration of the node.
func compareText(w *row) string {
	c := w.compare
	if c.Began.IsZero() || c.Ended.IsZero() {
		return c.Outcome
	}
	return durationText(c.Ended.Sub(c.Began))
}

func resourcesText(n *history.Node) string {
	var parts []string
	for k, v := range n.Resources {
		parts = append(parts, fmt.Sprintf("%s=%d", k, v))
	}
	sort.Strings(parts)
	if len(n.Devices) > 0 {
		parts = append(parts, "devices "+strings.Join(n.Devices, ","))
	}
	if n.Executor != "" && n.Executor != "local" {
		parts = append(parts, n.Executor)
	}
	return strings.Join(parts, " ")
}

func hashedText(n int64) string {
	if n == 0 {
		return ""
	}
	return human.Bytes(n)
}

// metricsSection writes, per node with metrics, a chart per metric.
func (m *model) metricsSection(b *strings.Builder) {
	if len(m.curves) == 0 {
		b.WriteString(`<p class="hint">No node of this run logged metrics. Declare them with a <code>metrics { format = "verl" }</code> block (or "jsonl", or patterns with named groups) on a node.</p>`)
		return
	}
	cmpID := 0
	if m.o.Compare != nil {
		cmpID = m.o.Compare.ID
		this, other := compareNames(m.run, m.o.Compare)
		fmt.Fprintf(b, `<p class="legend"><span><svg width="22" height="10"><line class="curve run" x1="0" y1="5" x2="22" y2="5"/></svg>%s</span><span><svg width="22" height="10"><line class="curve cmp" x1="0" y1="5" x2="22" y2="5"/></svg>%s</span></p>`, esc(this), esc(other))
	}
	for _, c := range m.curves {
		steps := c.run.Steps()
		fmt.Fprintf(b, `<h3 id="metrics-%d"><a href="#node-%d">%s</a> <span class="hint">%d metrics, %d steps</span></h3><div class="charts">`, c.index, c.index, esc(c.addr), len(c.keys), steps)
		for _, k := range c.keys {
			run, cmp := points(c.run, k), points(c.compare, k)
			b.WriteString(`<figure>`)
			fmt.Fprintf(b, `<figcaption><span class="key">%s</span>%s</figcaption>`, esc(k), esc(lastText(run, cmp, cmpID)))
			chart(b, k, run, cmp, m.run.ID, cmpID)
			b.WriteString(`</figure>`)
		}
		b.WriteString(`</div>`)
	}
}

func lastText(run, cmp []metrics.Point, cmpID int) string {
	s := ""
	if len(run) > 0 {
		s = " " + numberText(run[len(run)-1].Value)
	}
	if len(cmp) > 0 {
		s += fmt.Sprintf(" (run %d: %s)", cmpID, numberText(cmp[len(cmp)-1].Value))
	}
	return s
}

// stylesheet is the page's CSS, with the class colours of engine/graph.
func stylesheet() string {
	var b strings.Builder
	b.WriteString(baseCSS + sweepCSS)
	for _, c := range classOrder {
		style := palette.Class(c)
		if c == "pending" {
			style = "fill:#ffffff,stroke:#9ca3af,stroke-dasharray:2 2"
		}
		fill, stroke := styleColours(style)
		fmt.Fprintf(&b, ".%s{fill:%s;stroke:%s}.chip.%s{background:%s;border-color:%s}", c, fill, stroke, c, fill, stroke)
	}
	return b.String()
}

// styleColours takes the fill and stroke out of a Mermaid style.
func styleColours(style string) (fill, stroke string) {
	for _, part := range strings.Split(style, ",") {
		k, v, _ := strings.Cut(part, ":")
		switch k {
		case "fill":
			fill = v
		case "stroke":
			stroke = v
		}
	}
	return fill, stroke
}

const baseCSS = `
:root{color-scheme:light;--fg:#111827;--muted:#6b7280;--line:#e5e7eb;--accent:#1d4ed8}
*{box-sizing:border-box}
body{margin:0 auto;padding:20px 28px 60px;max-width:1180px;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","DejaVu Sans",sans-serif;color:var(--fg);background:#fff}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}h3{font-size:15px;margin:18px 0 6px}
a{color:var(--accent);text-decoration:none}a:hover{text-decoration:underline}
code{font:12px ui-monospace,SFMono-Regular,Menlo,"DejaVu Sans Mono",monospace;background:#f3f4f6;padding:1px 4px;border-radius:3px}
.facts{margin:2px 0;color:var(--muted)}
.status{font-size:12px;font-weight:600;padding:2px 8px;border-radius:10px;vertical-align:middle;background:#e5e7eb}
.status.complete{background:#dcfce7;color:#14532d}.status.running{background:#dbeafe;color:#1e3a8a}.status.interrupted,.status.failed{background:#fee2e2;color:#7f1d1d}
.summary{list-style:none;padding:0;margin:10px 0 0;display:flex;flex-wrap:wrap;gap:6px 18px}
nav{position:sticky;top:0;background:#fff;border-bottom:1px solid var(--line);padding:8px 0;margin-top:12px;z-index:1}nav a{margin-right:18px;font-weight:600}
.hint{color:var(--muted);font-size:13px;font-weight:normal}
.legend{display:flex;flex-wrap:wrap;gap:4px 16px;font-size:12px;color:var(--muted);margin:6px 0}.legend svg{vertical-align:middle;margin-right:5px}
.scroll{overflow-x:auto}
svg text{font:11px system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","DejaVu Sans",sans-serif;fill:var(--fg)}
.timeline .label{text-anchor:end}.timeline .label.crit{font-weight:700}
.timeline .tick,.chart .xtick{text-anchor:middle;fill:var(--muted)}
.grid{stroke:var(--line);stroke-width:1}
.bar{stroke-width:1}.bar.crit,.box.crit{stroke:#111827;stroke-width:2}
.queue{fill:url(#hatch);stroke:#9ca3af;stroke-width:.5}.legend .queue{fill:#e5e7eb}.queue.batch{stroke:#6b7280;stroke-dasharray:2 1}
.prep{opacity:.45}
.critical{font-size:13px}
table.nodes{border-collapse:collapse;width:100%;font-size:13px}
.nodes th,.nodes td{border-bottom:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
.nodes th{font-weight:600;color:var(--muted);white-space:nowrap;position:sticky;top:38px;background:#fff}
.nodes td.num,.nodes th.num{text-align:right;white-space:nowrap}
.nodes .addr{font-family:ui-monospace,SFMono-Regular,Menlo,"DejaVu Sans Mono",monospace;white-space:nowrap}
.nodes tr.crit .addr{font-weight:700}
.nodes tr:target{background:#fef9c3}
.nodes .why{color:#374151;max-width:360px;overflow-wrap:anywhere}
.chip{display:inline-block;border:1px solid;border-radius:10px;padding:0 8px;font-size:12px;white-space:nowrap}
.dag.fit{max-width:100%;height:auto}.dag .box{stroke-width:1.2}.dag text{font-family:ui-monospace,SFMono-Regular,Menlo,"DejaVu Sans Mono",monospace;font-size:11px}
.edge{fill:none;stroke:#9ca3af;stroke-width:1.2}.edge.crit{stroke:#111827;stroke-width:2}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(300px,1fr));gap:10px 14px}
figure{margin:0;border:1px solid var(--line);border-radius:6px;padding:6px 6px 0}
figcaption{font-size:12px;color:var(--muted);white-space:nowrap;overflow:hidden;text-overflow:ellipsis}figcaption .key{color:var(--fg);font-weight:600;margin-right:6px}
.chart{width:100%;height:auto;display:block}.chart .ytick{text-anchor:end;fill:var(--muted);font-size:10px}.chart .xtick{font-size:10px}
.frame{fill:none;stroke:var(--line)}
.curve{fill:none;stroke-width:1.8;stroke-linejoin:round}.curve.run{stroke:#1d4ed8}.curve.cmp{stroke:#ea580c;stroke-dasharray:5 3}
.pt.run{fill:#1d4ed8}.pt.cmp{fill:#ea580c}.pt.nan{fill:#fff;stroke:#b91c1c}
`
