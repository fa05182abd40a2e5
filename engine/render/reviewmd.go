package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/kilnbuild/kiln/engine/human"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/review"
)

// ReviewMarkdown writes kiln diff's report as Markdown a CI job can post on a pull
// request: a summary, a table of changed nodes with old and new values, the
// added, removed and invalidated nodes, a cost table and a Mermaid graph of
// the nodes that would rerun.
func ReviewMarkdown(w io.Writer, r *review.Report) {
	var files []string
	for _, f := range r.Files {
		files = append(files, MarkdownCode(f))
	}
	fmt.Fprintf(w, "### kiln diff: %s\n\n", strings.Join(files, ", "))
	fmt.Fprintf(w, "%s → %s\n\n", mdRevision(r.Old), mdRevision(r.New))
	if !r.HasChanges() {
		fmt.Fprintln(w, reviewUnchanged)
		writeUnresolvedMarkdown(w, r)
		return
	}
	fmt.Fprintf(w, "**%s**", summaryLine(r))
	if cost := costSentence(r); cost != "" {
		fmt.Fprintf(w, " %s", cost)
	}
	fmt.Fprintln(w)
	if len(r.Variables) > 0 {
		fmt.Fprint(w, "\n#### Variables\n\n| variable | old | new |\n|---|---|---|\n")
		for _, v := range r.Variables {
			fmt.Fprintf(w, "| %s | %s | %s |\n", MarkdownCode(v.Name), MarkdownCode(v.Old), MarkdownCode(v.New))
		}
	}
	if len(r.Changed) > 0 {
		fmt.Fprint(w, "\n#### Changed\n\n| node | change | old | new |\n|---|---|---|---|\n")
		for _, c := range r.Changed {
			for _, ch := range c.Changes {
				what, old, cur := mdChange(ch.Kind, ch.Subject, ch.Message), "", ""
				if ch.Old != "" || ch.New != "" {
					old, cur = MarkdownCode(ch.Old), MarkdownCode(ch.New)
				}
				fmt.Fprintf(w, "| %s | %s | %s | %s |\n", MarkdownCode(c.Address), what, old, cur)
			}
		}
	}
	mdList(w, "Added", r.Added)
	mdList(w, "Removed", r.Removed)
	if len(r.Renamed) > 0 {
		fmt.Fprint(w, "\n#### Renamed (nothing reruns)\n\n")
		for _, n := range r.Renamed {
			fmt.Fprintf(w, "- %s → %s\n", MarkdownCode(n.From), MarkdownCode(n.To))
		}
	}
	if len(r.Resources) > 0 {
		fmt.Fprint(w, "\n#### Resources (a cost change, not a rebuild)\n\n| node | old | new |\n|---|---|---|\n")
		for _, rc := range r.Resources {
			fmt.Fprintf(w, "| %s | %s | %s |\n", MarkdownCode(rc.Address), MarkdownCode(review.ResourcesText(rc.Old)), MarkdownCode(review.ResourcesText(rc.New)))
		}
	}
	if len(r.Invalidated) > 0 {
		fmt.Fprint(w, "\n#### Invalidated downstream\n\n")
		for _, n := range r.Invalidated {
			var up []string
			for _, u := range n.Because {
				up = append(up, MarkdownCode(u))
			}
			fmt.Fprintf(w, "- %s, after %s\n", MarkdownCode(n.Address), strings.Join(up, ", "))
		}
	}
	writeUnresolvedMarkdown(w, r)
	writeCostMarkdown(w, r)
	if r.Graph != "" {
		fmt.Fprintf(w, "\n<details><summary>Graph of the nodes to rerun (~ changed, + added, ? invalidated)</summary>\n\n```mermaid\n%s```\n\n</details>\n", r.Graph)
	}
}

// costSentence sums up the estimate for the top of a pull-request comment.
func costSentence(r *review.Report) string {
	c := r.Cost
	if r.Summary.Rerun == 0 {
		return ""
	}
	if c.Known == 0 {
		return "Estimated cost: unknown (no recorded runs)."
	}
	s := "Estimated cost: **" + formatSeconds(c.Seconds) + "**"
	if c.Restores > 0 {
		s += fmt.Sprintf(" (%s restored from the store)", human.Count(c.Restores, "node"))
	}
	for _, h := range c.Hours {
		s += ", " + MarkdownText(formatHours(h))
	}
	if n := len(c.Unknown); n > 0 {
		s += fmt.Sprintf(" (%s never ran: not counted)", human.Count(n, "node"))
	}
	return s + "."
}

func writeUnresolvedMarkdown(w io.Writer, r *review.Report) {
	if len(r.Unresolved) == 0 {
		return
	}
	fmt.Fprint(w, "\n#### Not compared\n\n")
	for _, u := range r.Unresolved {
		fmt.Fprintf(w, "- %s at %s: %s\n", MarkdownCode(u.Address), MarkdownCode(u.Revision), MarkdownText(u.Error))
	}
}

func writeCostMarkdown(w io.Writer, r *review.Report) {
	c := r.Cost
	if len(c.Nodes) == 0 {
		return
	}
	fmt.Fprintf(w, "\n#### Estimated cost\n\nLast recorded durations in %s.\n\n| node | last run | resources |\n|---|---|---|\n", MarkdownCode(c.State))
	for _, n := range c.Nodes {
		last := "never run"
		switch {
		case n.Restore:
			last = "0s: restored from the store"
		case n.Seconds != nil:
			last = formatSeconds(*n.Seconds)
		}
		fmt.Fprintf(w, "| %s | %s | %s |\n", MarkdownCode(n.Address), last, MarkdownText(formatResources(n.Resources)))
	}
	var hours []string
	for _, h := range c.Hours {
		hours = append(hours, MarkdownText(formatHours(h)))
	}
	fmt.Fprintf(w, "| **total** | **%s** (%d of %d known) | %s |\n", formatSeconds(c.Seconds), c.Known, len(c.Nodes), strings.Join(hours, ", "))
}

func mdList(w io.Writer, title string, nodes []review.Node) {
	if len(nodes) == 0 {
		return
	}
	fmt.Fprintf(w, "\n#### %s\n\n", title)
	for _, n := range nodes {
		fmt.Fprintf(w, "- %s\n", MarkdownCode(n.Address))
	}
}

// mdChange names what changed in the table's change column.
func mdChange(kind plan.ReasonKind, subject, message string) string {
	switch kind {
	case plan.ReasonAttribute:
		return "attribute " + MarkdownCode(subject)
	case plan.ReasonInput:
		return "input " + MarkdownCode(subject)
	case plan.ReasonUpstream:
		return "upstream " + MarkdownCode(subject)
	}
	return MarkdownText(message)
}

func mdRevision(r review.Revision) string {
	if r.WorkingTree {
		return "the " + review.WorkingTreeName
	}
	if r.NamedByCommit() {
		return MarkdownCode(human.Short(r.Commit))
	}
	return MarkdownCode(r.Name) + " (" + MarkdownCode(human.Short(r.Commit)) + ")"
}
