package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/fatih/color"
	"github.com/kilnbuild/kiln/engine/plan"
)

// Colors paints plan symbols; a zero value paints nothing.
type Colors struct{ On bool }

func (c Colors) action(sym string) func(format string, a ...any) string {
	if !c.On {
		return fmt.Sprintf
	}
	var attr color.Attribute
	switch plan.Action([]rune(sym)[0]) {
	case plan.Create:
		attr = color.FgGreen
	case plan.Rebuild:
		attr = color.FgYellow
	case plan.Maybe:
		attr = color.FgCyan
	case plan.Restore:
		attr = color.FgBlue
	case plan.Repair, plan.Forget:
		attr = color.FgRed
	case plan.Start:
		attr = color.FgMagenta
	case plan.Fetch:
		attr = color.FgBlue
	default:
		return fmt.Sprintf
	}
	c2 := color.New(attr, color.Bold)
	c2.EnableColor()
	return c2.Sprintf
}

func (c Colors) dim(s string) string {
	if !c.On {
		return s
	}
	d := color.New(color.Faint)
	d.EnableColor()
	return d.Sprint(s)
}

// PlanText writes the human plan: one entry per node that would change,
// with its reasons, then the nodes that cannot run here and a summary line.
func PlanText(w io.Writer, m *PlanJSON, c Colors) {
	if !m.HasChanges() {
		fmt.Fprintf(w, "No changes. %d node%s up to date.\n", m.Summary["no-op"], plural(m.Summary["no-op"]))
		writeBlocked(w, m, c)
		writeMismatches(w, m, c)
		return
	}
	for _, mv := range m.Moved {
		fmt.Fprintf(w, "%s has moved to %s\n    its records (state, logs, timings, lock entry) follow; nothing rebuilds for the move\n", mv.From, mv.To)
	}
	for _, ch := range m.Changes {
		if ch.Action == plan.NoOp.Word() {
			continue
		}
		word := ch.Action
		if ch.Resume {
			word = "resume"
		}
		if len(ch.DecidedAfter) > 0 {
			word = "decided after " + strings.Join(ch.DecidedAfter, ", ")
		}
		paint := c.action(ch.Symbol)
		on := ""
		if ch.Executor != "" && ch.Executor != "local" {
			on = " on " + ch.Executor
		}
		fmt.Fprintf(w, "%s %s %s%s\n", paint("%s", ch.Symbol), paint("%s", ch.Address), c.dim("("+word+")"), on)
		for _, r := range ch.Reasons {
			if r.Kind == "resume" {
				continue
			}
			fmt.Fprintf(w, "    %s\n", r.Message)
		}
		if ch.Blocked != "" {
			fmt.Fprintf(w, "    %s\n", c.action("!")("cannot run here: %s", ch.Blocked))
		}
	}
	for _, f := range m.Forget {
		paint := c.action("-")
		fmt.Fprintf(w, "%s %s %s\n    no longer in the configuration; its results stay in the store until kiln gc\n", paint("-"), paint("%s", f), c.dim("(forget)"))
	}
	writeBlocked(w, m, c)
	writeMismatches(w, m, c)
	fmt.Fprintf(w, "\n%s\n", Summary(m))
}

// writeMismatches warns of results that do not reproduce kiln.lock.hcl.
func writeMismatches(w io.Writer, m *PlanJSON, c Colors) {
	for _, ch := range m.Changes {
		if lm := ch.LockMismatch; lm != nil {
			fmt.Fprintf(w, "\n%s\n", c.action("!")("warning: %s: built with the key kiln.lock.hcl records, but the digest differs: %s in kiln.lock.hcl, %s here", ch.Address, short12(lm.Locked), short12(lm.Built)))
		}
	}
}

func short12(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

func writeBlocked(w io.Writer, m *PlanJSON, c Colors) {
	if len(m.Blocked) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s\n", c.action("!")("%d node%s cannot run on this machine:", len(m.Blocked), plural(len(m.Blocked))))
	for _, b := range m.Blocked {
		fmt.Fprintf(w, "  %s: %s\n", b.Address, b.Reason)
	}
}

// Summary is the plan's one-line summary.
func Summary(m *PlanJSON) string {
	var parts []string
	add := func(n int, what string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, what))
		}
	}
	s := m.Summary
	add(s["create"], "to create")
	add(s["rebuild"], "to rebuild")
	add(s["maybe"], "maybe")
	add(s["restore"], "to restore")
	add(s["repair"], "to repair")
	add(s["start"], "to start")
	add(s["fetch"], "to fetch")
	add(s["forget"], "to forget")
	add(len(m.Moved), "to move")
	add(s["no-op"], "up to date")
	return "Plan: " + strings.Join(parts, ", ") + "."
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
