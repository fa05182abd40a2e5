package render

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/fatih/color"
	"github.com/kilnbuild/kiln/engine/human"
	"github.com/kilnbuild/kiln/engine/review"
)

// reviewUnchanged is kiln diff's sentence, in text and Markdown, when
// nothing differs between the two revisions.
const reviewUnchanged = "No changes: every node has the same configuration, lock pins, files and dependencies at both revisions."

// ReviewText writes kiln diff's report for a terminal: one entry per node that
// changes, is added, removed or invalidated, with what changed, then a
// summary and the cost estimate, the symbols in colour when c is on.
func ReviewText(w io.Writer, r *review.Report, c Colors) {
	p := func(a color.Attribute, s string) string { return c.paint(s, a, color.Bold) }
	fmt.Fprintf(w, "kiln diff %s: %s → %s\n\n", strings.Join(r.Files, ", "), r.Old.Label(), r.New.Label())
	if !r.HasChanges() {
		fmt.Fprintln(w, reviewUnchanged)
		writeUnresolvedText(w, r, p)
		writeKeyFilesText(w, r)
		return
	}
	for _, v := range r.Variables {
		fmt.Fprintf(w, "variable %s changed: %s → %s\n", v.Name, v.Old, v.New)
	}
	if len(r.Variables) > 0 {
		fmt.Fprintln(w)
	}
	for _, c := range r.Changed {
		fmt.Fprintf(w, "%s %s (changed)\n", p(color.FgYellow, "~"), p(color.FgYellow, c.Address))
		for _, ch := range c.Changes {
			fmt.Fprintf(w, "    %s\n", ch.Message)
		}
	}
	for _, n := range r.Added {
		fmt.Fprintf(w, "%s %s (added)\n", p(color.FgGreen, "+"), p(color.FgGreen, n.Address))
	}
	for _, n := range r.Removed {
		fmt.Fprintf(w, "%s %s (removed)\n", p(color.FgRed, "-"), p(color.FgRed, n.Address))
	}
	for _, n := range r.Renamed {
		fmt.Fprintf(w, "%s %s → %s (renamed)\n    keys hold no names: the result follows the node\n", p(color.FgBlue, ">"), n.From, p(color.FgBlue, n.To))
	}
	for _, rc := range r.Resources {
		fmt.Fprintf(w, "%s %s: %s\n", p(color.FgMagenta, "$"), rc.Address, rc.Message)
	}
	for _, n := range r.Invalidated {
		fmt.Fprintf(w, "%s %s (invalidated)\n    %s\n", p(color.FgCyan, "?"), p(color.FgCyan, n.Address), becauseText(n.Because))
	}
	writeUnresolvedText(w, r, p)
	fmt.Fprintf(w, "\n%s\n", summaryLine(r))
	writeCostText(w, r)
	writeKeyFilesText(w, r)
}

// writeKeyFilesText lists the files that enter keys, the changed ones
// first, so a reviewer sees what the comparison covered.
func writeKeyFilesText(w io.Writer, r *review.Report) {
	if len(r.KeyFiles) == 0 {
		return
	}
	fmt.Fprintf(w, "\nFiles that enter keys (%d), compared by content:\n", len(r.KeyFiles))
	for _, changed := range []bool{true, false} {
		for _, f := range r.KeyFiles {
			if f.Changed() != changed {
				continue
			}
			state := "unchanged"
			switch {
			case f.Old == "":
				state = "new"
			case f.New == "":
				state = "no longer used"
			case changed:
				state = "changed: " + f.Old + " → " + f.New
			}
			fmt.Fprintf(w, "  %s (%s; %s) %s\n", f.Path, f.How, state, strings.Join(f.Nodes, ", "))
		}
	}
}

func writeUnresolvedText(w io.Writer, r *review.Report, p func(color.Attribute, string) string) {
	for _, u := range r.Unresolved {
		fmt.Fprintf(w, "%s %s (not compared: cannot evaluate it at %s)\n    %s\n", p(color.FgMagenta, "!"), p(color.FgMagenta, u.Address), u.Revision, u.Error)
	}
}

func writeCostText(w io.Writer, r *review.Report) {
	c := r.Cost
	if r.Summary.Rerun == 0 {
		return
	}
	if c.Known == 0 {
		fmt.Fprintf(w, "Estimated cost: unknown; none of the nodes to rerun has a recorded run in %s.\n", c.State)
		return
	}
	defer writeRestoresText(w, c)
	restored := ""
	if c.Restores > 0 {
		restored = fmt.Sprintf(", %d restored from the store", c.Restores)
	}
	line := fmt.Sprintf("Estimated cost: %s recorded for %d of %s to rerun%s (state: %s)",
		formatSeconds(c.Seconds), c.Known, human.Count(len(c.Nodes), "node"), restored, c.State)
	for _, h := range c.Hours {
		line += "; " + formatHours(h)
	}
	fmt.Fprintln(w, line+".")
	if len(c.Unknown) > 0 {
		fmt.Fprintf(w, "Never run, so not in the estimate: %s.\n", strings.Join(c.Unknown, ", "))
	}
}

// summaryLine counts the report: "3 nodes rerun: 1 changed, 1 added, 1
// invalidated downstream; 1 removed."
func summaryLine(r *review.Report) string {
	s := r.Summary
	var parts []string
	for _, x := range []struct {
		n    int
		word string
	}{{s.Changed, "changed"}, {s.Added, "added"}, {s.Invalidated, "invalidated downstream"}} {
		if x.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", x.n, x.word))
		}
	}
	line := human.Count(s.Rerun, "node") + " to rerun"
	if len(parts) > 0 {
		line += ": " + strings.Join(parts, ", ")
	}
	if s.Removed > 0 {
		line += fmt.Sprintf("; %d removed", s.Removed)
	}
	if s.Renamed > 0 {
		line += fmt.Sprintf("; %d renamed", s.Renamed)
	}
	if s.Resources > 0 {
		line += fmt.Sprintf("; %d with new resources", s.Resources)
	}
	if s.Unresolved > 0 {
		line += fmt.Sprintf("; %d not compared", s.Unresolved)
	}
	return line + "."
}

// becauseText says which upstream nodes make an invalidated node rerun.
func becauseText(up []string) string {
	if len(up) == 1 {
		return "upstream " + up[0] + " reruns"
	}
	return "upstream " + strings.Join(up, ", ") + " rerun"
}

// formatSeconds writes a duration as "2h 5m 3s", leaving out zero parts.
func formatSeconds(s float64) string {
	d := time.Duration(s * float64(time.Second)).Round(time.Second)
	h, m, sec := int(d/time.Hour), int(d%time.Hour/time.Minute), int(d%time.Minute/time.Second)
	var parts []string
	if h > 0 {
		parts = append(parts, fmt.Sprintf("%dh", h))
	}
	if m > 0 {
		parts = append(parts, fmt.Sprintf("%dm", m))
	}
	if sec > 0 || len(parts) == 0 {
		parts = append(parts, fmt.Sprintf("%ds", sec))
	}
	return strings.Join(parts, " ")
}

// formatHours writes resource-weighted hours as "NPU-hours 16.0".
func formatHours(h review.ResourceHours) string {
	return fmt.Sprintf("%s-hours %.1f", strings.ToUpper(h.Resource), h.Hours)
}

// formatResources writes a node's resources as "npu=8, mem=2".
func formatResources(res map[string]int64) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(res)) {
		parts = append(parts, fmt.Sprintf("%s=%d", k, res[k]))
	}
	return strings.Join(parts, ", ")
}

// writeRestoresText names the nodes that restore from the store: a revert
// costs nothing.
func writeRestoresText(w io.Writer, c review.Cost) {
	var names []string
	for _, n := range c.Nodes {
		if n.Restore {
			names = append(names, n.Address)
		}
	}
	if len(names) > 0 {
		fmt.Fprintf(w, "Restored from the store, which has their results for this version, at no cost: %s.\n", strings.Join(names, ", "))
	}
}
