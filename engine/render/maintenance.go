package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/kilnbuild/kiln/engine"
	"github.com/kilnbuild/kiln/engine/human"
	"github.com/kilnbuild/kiln/engine/proc"
)

// Destroyed writes what kiln destroy did per node, failures to errs; it
// reports whether one failed.
func Destroyed(out, errs io.Writer, done []engine.Destroyed) (failed bool) {
	for _, d := range done {
		switch {
		case d.Err != nil:
			fmt.Fprintf(errs, "%s: %v\n", d.Addr, d.Err)
			failed = true
		case len(d.Leftover) > 0:
			fmt.Fprintf(out, "%s: stopped %s left running by an apply that died\n", d.Addr, processes(d.Leftover))
		case d.Down != "":
			fmt.Fprintf(out, "%s: not running (%s)\n", d.Addr, d.Down)
		case d.Stopped:
			fmt.Fprintf(out, "%s: stopped\n", d.Addr)
		default:
			fmt.Fprintf(out, "%s: forgotten (its result stays in the store until kiln gc)\n", d.Addr)
		}
	}
	return failed
}

// NothingToDestroy is destroy's line when it acted on nothing.
func NothingToDestroy(w io.Writer) { fmt.Fprintln(w, "Nothing to destroy.") }

// GC writes what kiln gc removed, or would with dryRun, and why it kept
// what it kept.
func GC(w io.Writer, rep *engine.GCReport, dryRun bool) {
	verb := "removed"
	if dryRun {
		verb = "would remove"
	}
	for _, e := range rep.Removed {
		fmt.Fprintf(w, "%s %s (%s, %s)\n", verb, gcName(e.Key, e.Entry), e.Addr, human.Bytes(e.Size))
	}
	for _, l := range rep.Links {
		fmt.Fprintf(w, "%s link %s (its entry is gone)\n", verb, l)
	}
	for _, e := range rep.KeptEntries {
		fmt.Fprintf(w, "kept %s (%s): %s\n", gcName(e.Key, e.Entry), e.Addr, e.Why)
	}
	entries := "entries"
	if len(rep.Removed) == 1 {
		entries = "entry"
	}
	fmt.Fprintf(w, "%s %d %s, %s; kept %d in use.\n", strings.ToUpper(verb[:1])+verb[1:], len(rep.Removed), entries, human.Bytes(rep.Freed), rep.Kept)
	gcBudget(w, rep)
}

// gcBudget says how the store stands against gc's -budget.
func gcBudget(w io.Writer, rep *engine.GCReport) {
	if rep.Budget <= 0 {
		return
	}
	fmt.Fprintf(w, "Store: %s kept of a %s budget (%s in use).\n", human.Bytes(rep.Stored), human.Bytes(rep.Budget), human.Bytes(rep.InUse))
	if rep.InUse > rep.Budget {
		fmt.Fprintf(w, "The results in use alone are over the budget: gc never removes them; raise -budget, or kiln destroy the nodes you no longer need (their results become earlier ones).\n")
	}
}

// gcName names what gc removed or kept: a store entry by its short key, a
// kind's leftover (no key) by its path in the state folder.
func gcName(key, entry string) string {
	if key == "" {
		return entry
	}
	return human.Short(key)
}

// Recovered says what kiln found of an apply that died and what it did
// about it, one line per unfinished run.
func Recovered(w io.Writer, rs []engine.Recovered) {
	for _, r := range rs {
		var parts []string
		if len(r.Stopped) > 0 {
			parts = append(parts, "stopped "+processes(r.Stopped)+" it left running")
		}
		if len(r.Left) > 0 {
			parts = append(parts, processes(r.Left)+" still running after SIGKILL (check them with ps)")
		}
		if r.Kept {
			parts = append(parts, "kept its folder")
		} else {
			parts = append(parts, "removed its unfinished run")
		}
		fmt.Fprintf(w, "kiln: an earlier apply died while %s ran: %s\n", r.Addr, strings.Join(parts, "; "))
	}
}

// processes names processes by pid: "process 12", "processes 12, 13".
func processes(ps []proc.Process) string {
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = fmt.Sprint(p.PID)
	}
	if len(ps) == 1 {
		return "process " + ids[0]
	}
	return "processes " + strings.Join(ids, ", ")
}
