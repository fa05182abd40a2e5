package render

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/kilnbuild/kiln/engine/plan"
)

// PlanMarkdown writes the plan as a Markdown table a CI job can post on a
// pull request.
func PlanMarkdown(w io.Writer, m *PlanJSON) {
	b := bufio.NewWriter(w)
	defer b.Flush()
	planMarkdown(b, m)
}

func planMarkdown(w io.Writer, m *PlanJSON) {
	fmt.Fprintf(w, "### kiln plan\n\n%s\n\n", Summary(m))
	if !m.HasChanges() {
		fmt.Fprintln(w, "Nothing to do: every node is up to date.")
		return
	}
	fmt.Fprintln(w, "| | node | action | why |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, c := range m.Changes {
		if c.Action == plan.NoOp.Word() {
			continue
		}
		var why []string
		for _, r := range c.Reasons {
			why = append(why, MarkdownText(r.Message))
		}
		if c.Blocked != "" {
			why = append(why, "**cannot run here:** "+MarkdownText(c.Blocked))
		}
		action := c.Action
		if c.Executor != "" && c.Executor != "local" {
			action += " on " + MarkdownText(c.Executor)
		}
		fmt.Fprintf(w, "| `%s` | %s | %s | %s |\n", c.Symbol, MarkdownCode(c.Address), action, strings.Join(why, "<br>"))
	}
	for _, f := range m.Forget {
		fmt.Fprintf(w, "| `-` | %s | forget | no longer in the configuration |\n", MarkdownCode(f))
	}
}
