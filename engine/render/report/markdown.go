package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/kilnbuild/kiln/engine/history"
	"github.com/kilnbuild/kiln/engine/human"
	"github.com/kilnbuild/kiln/engine/metrics"
	"github.com/kilnbuild/kiln/engine/render"
)

// Markdown writes the report for a pull request: the run's summary, a table
// of the nodes that did something (all of them for small runs), the
// critical path, and per node with metrics a table of last, min and max.
func Markdown(w io.Writer, o Options) error {
	m, err := build(o)
	if err != nil {
		return err
	}
	var b strings.Builder
	r := m.run
	fmt.Fprintf(&b, "## kiln run %d (%s)\n\n", r.ID, r.Label())
	took := "took " + durationText(m.end.Sub(m.start))
	if r.Status == history.Running {
		took = "running for " + durationText(m.end.Sub(m.start))
	}
	facts := []string{"Started " + r.Started.UTC().Format("2006-01-02 15:04:05 UTC"), took}
	if r.Host != "" {
		facts = append(facts, "host "+render.MarkdownCode(r.Host))
	}
	var counts []string
	for _, oc := range outcomeOrder {
		if n := m.counts[oc]; n > 0 {
			counts = append(counts, fmt.Sprintf("%d %s", n, oc))
		}
	}
	facts = append(facts, fmt.Sprintf("%d nodes: %s", len(r.Nodes), strings.Join(counts, ", ")))
	if m.npuHours > 0 {
		facts = append(facts, npuText(m.npuHours)+" NPU-hours")
	}
	if m.hashed > 0 {
		facts = append(facts, human.Bytes(m.hashed)+" hashed")
	}
	b.WriteString(strings.Join(facts, " · ") + "\n\n")
	if v := varsText(r); v != "" {
		b.WriteString("Variables: " + render.MarkdownText(v) + "\n\n")
	}

	cmp := o.Compare != nil
	header := "| node | action | outcome | why | queued | ran |"
	rule := "|---|---|---|---|---:|---:|"
	if cmp {
		header += fmt.Sprintf(" run %d |", o.Compare.ID)
		rule += "---:|"
	}
	b.WriteString(header + " NPU-h | cache | log |\n" + rule + "---:|---|---|\n")
	quiet := 0
	for _, w := range m.rows {
		if len(m.rows) > 50 && w.outcome == "up-to-date" {
			quiet++
			continue
		}
		outcome := w.outcome
		if w.n.ExitCode != nil && *w.n.ExitCode != 0 {
			outcome += fmt.Sprintf(" (exit %d)", *w.n.ExitCode)
		}
		node := render.MarkdownCode(w.n.Addr)
		if w.critical {
			node = "**" + node + "**"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |", node, render.MarkdownText(strings.TrimSpace(w.symbol+" "+w.action)), render.MarkdownText(outcome),
			render.MarkdownText(strings.Join(w.why, "; ")), optDuration(w.waited()), ranText(w))
		if cmp {
			c := ""
			if w.compare != nil {
				c = compareText(w)
			}
			fmt.Fprintf(&b, " %s |", render.MarkdownText(c))
		}
		npu := npuText(w.npuHours)
		log := ""
		if w.log != "" {
			log = render.MarkdownCode(w.log)
		}
		fmt.Fprintf(&b, " %s | %s | %s |\n", npu, w.cache, log)
	}
	if quiet > 0 {
		fmt.Fprintf(&b, "\n%d nodes were up to date.\n", quiet)
	}
	if len(m.critical) > 1 {
		var names []string
		for _, i := range m.critical {
			names = append(names, render.MarkdownCode(r.Nodes[i].Addr))
		}
		fmt.Fprintf(&b, "\nCritical path (in bold above): %s.\n", strings.Join(names, " → "))
	}
	metricsMarkdown(&b, m, o.Compare)
	if len(o.Runs) > 0 {
		sweepMarkdown(&b, o.Runs)
	}
	_, err = io.WriteString(w, b.String())
	return err
}

// metricsMarkdown writes a table per node with metrics: each metric's last
// value, its extremes and steps, and its last value in the run compared
// with, when there is one.
func metricsMarkdown(b *strings.Builder, m *model, compare *history.Run) {
	for _, c := range m.curves {
		fmt.Fprintf(b, "\n### Metrics of %s (%d steps)\n\n", render.MarkdownCode(c.addr), c.run.Steps())
		head, line := "| metric | last | min | max | steps |", "|---|---:|---:|---:|---:|"
		if compare != nil {
			head += fmt.Sprintf(" run %d last |", compare.ID)
			line += "---:|"
		}
		b.WriteString(head + "\n" + line + "\n")
		for _, k := range c.keys {
			s := metrics.Summarise(points(c.run, k))
			fmt.Fprintf(b, "| %s | %s | %s | %s | %d |", render.MarkdownCode(k), lastCell(s), extreme(s.Min, s.MinStep, s.Steps), extreme(s.Max, s.MaxStep, s.Steps), s.Steps)
			if compare != nil {
				fmt.Fprintf(b, " %s |", lastCell(metrics.Summarise(points(c.compare, k))))
			}
			b.WriteString("\n")
		}
	}
}

func lastCell(s metrics.Summary) string {
	if s.Steps == 0 {
		return ""
	}
	return fmt.Sprintf("%s (step %d)", numberText(s.LastValue), s.Last)
}

func extreme(v float64, step int64, steps int) string {
	if steps == 0 || v != v {
		return ""
	}
	return fmt.Sprintf("%s (step %d)", numberText(v), step)
}
