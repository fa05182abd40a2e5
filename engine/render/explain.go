package render

import (
	"fmt"
	"io"

	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/plan"
)

// Explain writes why a node would or would not run: the action, its
// reasons, and the key's labelled lines beside the recorded ones, marked
// "~" changed, "+" new, "-" gone and "?" waiting on an upstream digest.
func Explain(w io.Writer, d *plan.Decision, c Colors) {
	addr := d.Node.Addr.String()
	word := d.Action.Word()
	if d.Action == plan.NoOp {
		word = "up to date"
	}
	fmt.Fprintf(w, "%s: %s\n", addr, c.action(string(d.Action))("%s", word))
	for _, r := range d.Reasons {
		fmt.Fprintf(w, "  %s\n", r.String())
	}
	if d.Blocked != "" {
		fmt.Fprintf(w, "  cannot run here: %s\n", d.Blocked)
	}
	var recorded []hash.Line
	if d.Record != nil {
		recorded = d.Record.KeyLines
	}
	switch {
	case d.Key == "" && len(d.KeyLines) == 0:
		fmt.Fprintln(w, "\nThe key is not known yet: an upstream node runs first. Recorded key lines:")
		for _, l := range recorded {
			fmt.Fprintf(w, "    %s\n", l.Show())
		}
		return
	case d.Key == "":
		fmt.Fprintln(w, "\nkey not known until the upstream nodes marked ? have run; the lines computable now:")
	default:
		fmt.Fprintf(w, "\nkey %s", d.Key)
		if d.Record != nil && d.Record.Key != "" {
			fmt.Fprintf(w, " (recorded %s)", d.Record.Key)
		}
		fmt.Fprintln(w)
	}
	old := map[lineID]hash.Line{}
	for _, l := range recorded {
		old[idOf(l)] = l
	}
	seen := map[lineID]bool{}
	for i, line := range d.KeyLines {
		id, l := idOf(line), line.Show()
		seen[id] = true
		wasLine, ok := old[id]
		was, v := wasLine.Value, line.Value
		switch up, waiting := d.Waiting[i]; {
		case waiting:
			fmt.Fprintf(w, "  %s %s (waiting on %s)\n", c.action("?")("?"), l, up)
			if ok && was != v {
				fmt.Fprintf(w, "      %s\n", c.dim("was: "+was))
			}
		case d.Record == nil || len(recorded) == 0:
			fmt.Fprintf(w, "    %s\n", l)
		case !ok:
			fmt.Fprintf(w, "  %s %s\n", c.action("+")("+"), l)
		case was != v:
			fmt.Fprintf(w, "  %s %s\n", c.action("~")("~"), l)
			fmt.Fprintf(w, "      %s\n", c.dim("was: "+was))
		default:
			fmt.Fprintf(w, "    %s\n", l)
		}
	}
	for _, l := range recorded {
		if !seen[idOf(l)] {
			fmt.Fprintf(w, "  %s %s\n", c.action("-")("-"), l.Show())
		}
	}
}

// lineID is a key line's identity: its label and what it is about.
type lineID struct{ label, about string }

func idOf(l hash.Line) lineID { return lineID{l.Label, l.About()} }
