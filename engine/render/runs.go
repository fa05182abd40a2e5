package render

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kilnbuild/kiln/engine/history"
	"github.com/kilnbuild/kiln/engine/human"
)

// Runs writes kiln runs: per run, its label, the variables that tell it
// from the others listed (then the rest), why its nodes ran, and each
// node's outcome with its metrics' final and best values.
func Runs(w io.Writer, runs []history.Summary) {
	if len(runs) == 0 {
		fmt.Fprintln(w, "No recorded runs: kiln apply records one.")
		return
	}
	for i, r := range runs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		at := ""
		if r.Commit != "" {
			at = "  at " + human.Short(r.Commit)
		}
		fmt.Fprintf(w, "run %d  %s  %s%s\n", r.ID, r.Started.Local().Format(time.DateTime), r.Status, at)
		if len(r.Differs) > 0 {
			fmt.Fprintf(w, "  differs  %s\n", varsText(r.Differs))
		}
		if rest := others(r.Vars, r.Differs); len(rest) > 0 {
			fmt.Fprintf(w, "  vars     %s\n", varsText(rest))
		}
		for _, c := range r.Changed {
			fmt.Fprintf(w, "  changed  %s\n", oneLine(c, 160))
		}
		for _, n := range r.Nodes {
			fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf("  %-24s %-11s%s", n.Addr, outcomeText(n.Outcome), metricsText(n.Metrics)), " "))
		}
	}
}

// RunsMarkdown writes the runs as one table, a column per differing
// variable and per node metric (final, best), for a pull request.
func RunsMarkdown(w io.Writer, runs []history.Summary) {
	vars, cols := runColumns(runs)
	fmt.Fprint(w, "| run | status |")
	for _, v := range vars {
		fmt.Fprintf(w, " %s |", MarkdownCode(v))
	}
	for _, c := range cols {
		fmt.Fprintf(w, " %s %s |", MarkdownCode(c[0]), MarkdownCode(c[1]))
	}
	fmt.Fprintf(w, "\n|---:|---|%s\n", strings.Repeat("---|", len(vars)+len(cols)))
	for _, r := range runs {
		fmt.Fprintf(w, "| %d | %s |", r.ID, r.Status)
		for _, v := range vars {
			fmt.Fprintf(w, " %s |", MarkdownText(r.Differs[v]))
		}
		for _, c := range cols {
			fmt.Fprintf(w, " %s |", MarkdownText(metricCell(r, c[0], c[1])))
		}
		fmt.Fprintln(w)
	}
}

// runColumns are the differing variables and the (node, metric) pairs of
// the runs, sorted.
func runColumns(runs []history.Summary) (vars []string, cols [][2]string) {
	vs, ms := map[string]bool{}, map[[2]string]bool{}
	for _, r := range runs {
		for v := range r.Differs {
			vs[v] = true
		}
		for _, n := range r.Nodes {
			for _, m := range n.Metrics {
				ms[[2]string{n.Addr, m.Key}] = true
			}
		}
	}
	cols = slices.SortedFunc(maps.Keys(ms), func(a, b [2]string) int {
		if c := strings.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return strings.Compare(a[1], b[1])
	})
	return slices.Sorted(maps.Keys(vs)), cols
}

func metricCell(r history.Summary, addr, key string) string {
	for _, n := range r.Nodes {
		if n.Addr != addr {
			continue
		}
		for _, m := range n.Metrics {
			if m.Key == key {
				return fmt.Sprintf("%s (best %s)", numText(m.Final), numText(m.Best))
			}
		}
	}
	return ""
}

func others(all, differ map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range all {
		if _, ok := differ[k]; !ok {
			out[k] = v
		}
	}
	return out
}

// varsText writes variables as name=value, sorted by name.
func varsText(vars map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		parts = append(parts, k+"="+oneLine(vars[k], 60))
	}
	return strings.Join(parts, " ")
}

func outcomeText(o string) string {
	if o == "" {
		return "not run"
	}
	return o
}

func metricsText(ms []history.MetricSummary) string {
	var parts []string
	for _, m := range ms {
		parts = append(parts, fmt.Sprintf("%s %s (step %d, best %s at %d)", m.Key, numText(m.Final), m.Step, numText(m.Best), m.BestStep))
	}
	return strings.Join(parts, "; ")
}

func numText(v *float64) string {
	if v == nil {
		return "NaN"
	}
	return strconv.FormatFloat(*v, 'g', 6, 64)
}
