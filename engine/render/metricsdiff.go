package render

import (
	"fmt"
	"io"
	"strconv"

	"github.com/kilnbuild/kiln/engine/history"
)

// MetricsDiff writes the metrics diff of two runs as text, in the layout of
// dvc metrics diff: node, metric, each run's final value, the change.
func MetricsDiff(w io.Writer, d history.Diff) {
	if len(d.Metrics) == 0 {
		fmt.Fprintf(w, "No metric differs between run %d and run %d.\n", d.Old, d.New)
		return
	}
	rows := [][]string{{"Node", "Metric", "run " + strconv.Itoa(d.Old), "run " + strconv.Itoa(d.New), "Change"}}
	for _, m := range d.Metrics {
		rows = append(rows, []string{m.Addr, m.Key, diffNum(m.Old), diffNum(m.New), changeText(m.Change)})
	}
	writeColumns(w, rows)
}

// ParamsDiff writes the variables that differ between two runs, in the
// layout of dvc params diff.
func ParamsDiff(w io.Writer, d history.Diff) {
	if len(d.Params) == 0 {
		fmt.Fprintf(w, "No variable differs between run %d and run %d.\n", d.Old, d.New)
		return
	}
	rows := [][]string{{"Variable", "run " + strconv.Itoa(d.Old), "run " + strconv.Itoa(d.New)}}
	for _, p := range d.Params {
		rows = append(rows, []string{p.Name, oneLine(p.Old, 60), oneLine(p.New, 60)})
	}
	writeColumns(w, rows)
}

// DiffMarkdown writes both diffs as Markdown tables, for a pull request.
func DiffMarkdown(w io.Writer, d history.Diff, metrics, params bool) {
	if metrics {
		fmt.Fprintf(w, "| node | metric | run %d | run %d | change |\n|---|---|---:|---:|---:|\n", d.Old, d.New)
		for _, m := range d.Metrics {
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", MarkdownCode(m.Addr), MarkdownCode(m.Key), diffNum(m.Old), diffNum(m.New), changeText(m.Change))
		}
	}
	if metrics && params {
		fmt.Fprintln(w)
	}
	if params {
		fmt.Fprintf(w, "| variable | run %d | run %d |\n|---|---|---|\n", d.Old, d.New)
		for _, p := range d.Params {
			fmt.Fprintf(w, "| %s | %s | %s |\n", MarkdownCode(p.Name), MarkdownText(p.Old), MarkdownText(p.New))
		}
	}
}

func diffNum(v *float64) string {
	if v == nil {
		return "-"
	}
	return numText(v)
}

func changeText(v *float64) string {
	if v == nil {
		return "-"
	}
	if *v > 0 {
		return "+" + numText(v)
	}
	return numText(v)
}

// writeColumns writes rows with each column padded to its widest cell.
func writeColumns(w io.Writer, rows [][]string) {
	width := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	for _, r := range rows {
		line := ""
		for i, c := range r {
			if i < len(r)-1 {
				c += spaces(width[i] - len([]rune(c)) + 2)
			}
			line += c
		}
		fmt.Fprintln(w, line)
	}
}

func spaces(n int) string {
	b := make([]byte, max(n, 0))
	for i := range b {
		b[i] = ' '
	}
	return string(b)
}
