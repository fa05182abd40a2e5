package render

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/kilnbuild/kiln/engine/human"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/pool"
)

// NoChanges is the plan's line when no node would change: from the full
// plan, or from the memo (engine/memo) without one.
func NoChanges(w io.Writer, upToDate int) {
	fmt.Fprintf(w, "No changes. %s up to date.\n", human.Count(upToDate, "node"))
}

// PlanText writes the human plan: one entry per node that would change,
// with its reasons, then the nodes that cannot run here and a summary line.
// It is written in one go (a plan of 10,000 nodes is tens of thousands of
// lines, each otherwise a write of its own).
func PlanText(w io.Writer, m *PlanJSON, c Colors) {
	b := bufio.NewWriter(w)
	defer b.Flush()
	planText(b, m, c)
}

func planText(w io.Writer, m *PlanJSON, c Colors) {
	if !m.HasChanges() {
		NoChanges(w, m.Summary["no-op"])
		writeTemps(w, m)
		writeDevices(w, m, c)
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
			fmt.Fprintf(w, "    %s\n", r.Message)
		}
		if ch.Unsandboxed != "" {
			fmt.Fprintf(w, "    %s\n", c.action("!")("unsandboxed (sandbox = false): %s", ch.Unsandboxed))
		}
		if b := blockedOf(m, ch.Address); b != nil {
			where := "see below"
			if b.Cause != b.Address {
				where = "needs " + b.Cause + ", see below"
			}
			fmt.Fprintf(w, "    %s\n", c.action("!")("cannot run here (%s)", where))
		} else if ch.Blocked != "" {
			fmt.Fprintf(w, "    %s\n", c.action("!")("cannot run here: %s", ch.Blocked))
		}
	}
	for _, f := range m.Forget {
		paint := c.action("-")
		fmt.Fprintf(w, "%s %s %s\n    no longer in the configuration; its results stay in the store until kiln gc\n", paint("-"), paint("%s", f), c.dim("(forget)"))
	}
	writeTemps(w, m)
	writeDevices(w, m, c)
	writeBlocked(w, m, c)
	writeMismatches(w, m, c)
	if m.Sandbox != nil {
		fmt.Fprintf(w, "\nSealed runs: %s.\n", m.Sandbox.Message)
	}
	fmt.Fprintf(w, "\n%s\n", Summary(m))
	fmt.Fprintln(w, c.dim(Legend(m)))
}

// writeMismatches warns of results that do not reproduce kiln.lock.hcl.
func writeMismatches(w io.Writer, m *PlanJSON, c Colors) {
	for _, ch := range m.Changes {
		if lm := ch.LockMismatch; lm != nil {
			fmt.Fprintf(w, "\n%s\n", c.action("!")("warning: %s: built with the key kiln.lock.hcl records, but the digest differs: %s in kiln.lock.hcl, %s here", ch.Address, human.Short(lm.Locked), human.Short(lm.Built)))
		}
	}
}

// writeDevices shows the device pools that nodes about to run use, or
// that left a device out: "Devices: npu 0-2,4-7 from host.a2
// (ASCEND_RT_VISIBLE_DEVICES)", then each excluded device.
func writeDevices(w io.Writer, m *PlanJSON, c Colors) {
	used := map[string]bool{}
	for _, ch := range m.Changes {
		if ch.Action != plan.NoOp.Word() {
			for name := range ch.Resources {
				used[name] = true
			}
		}
	}
	first := true
	for _, p := range m.Pools {
		if p.Devices == nil || !used[p.Name] && len(p.Excluded) == 0 {
			continue
		}
		if first {
			fmt.Fprintln(w)
			first = false
		}
		line := fmt.Sprintf("Devices: %s %s from %s", p.Name, pool.IDs(p.Devices), p.From)
		if p.Env != "" {
			line += " (" + p.Env + ")"
		}
		fmt.Fprintln(w, line)
		for _, e := range p.Excluded {
			fmt.Fprintf(w, "  %s\n", c.action("!")("%s", e.Message))
		}
	}
}

// writeTemps names the up-to-date temp nodes whose results were removed.
func writeTemps(w io.Writer, m *PlanJSON) {
	var names []string
	for _, ch := range m.Changes {
		if ch.TempRemoved && ch.Action == plan.NoOp.Word() {
			names = append(names, ch.Address)
		}
	}
	if len(names) == 0 {
		return
	}
	const shown = 5
	list := strings.Join(names[:min(len(names), shown)], ", ")
	if len(names) > shown {
		list += fmt.Sprintf(" and %d more", len(names)-shown)
	}
	fmt.Fprintf(w, "temp: removed, rebuilt if needed: %s\n", list)
}

// writeBlocked lists the nodes that cannot run here, once per cause: the
// reason, then the nodes it blocks.
func writeBlocked(w io.Writer, m *PlanJSON, c Colors) {
	if len(m.Blocked) == 0 {
		return
	}
	var causes []string
	blocks := map[string][]string{}
	reason := map[string]string{}
	for _, b := range m.Blocked {
		if _, seen := blocks[b.Cause]; !seen {
			causes = append(causes, b.Cause)
		}
		blocks[b.Cause] = append(blocks[b.Cause], b.Address)
		if b.Address == b.Cause || reason[b.Cause] == "" {
			reason[b.Cause] = b.Reason
		}
	}
	sort.Strings(causes)
	head := human.Count(len(m.Blocked), "node") + " cannot run on this machine"
	if len(causes) > 1 {
		head += fmt.Sprintf(", for %d reasons", len(causes))
	}
	fmt.Fprintf(w, "\n%s\n", c.action("!")("%s:", head))
	for _, cause := range causes {
		fmt.Fprintf(w, "\n  %s:\n", cause)
		for _, r := range splitReasons(trimSelfName(cause, reason[cause])) {
			fmt.Fprintf(w, "      %s\n", r)
		}
		nodes := blocks[cause]
		fmt.Fprintf(w, "    %s\n", c.dim(fmt.Sprintf("blocks %s: %s", human.Count(len(nodes), "node"), strings.Join(nodes, ", "))))
	}
}

func blockedOf(m *PlanJSON, address string) *BlockedJSON {
	for i := range m.Blocked {
		if m.Blocked[i].Address == address {
			return &m.Blocked[i]
		}
	}
	return nil
}

// trimSelfName drops the "KIND NAME: " a kind starts its own messages with.
func trimSelfName(address, reason string) string {
	kind, name, _ := strings.Cut(address, ".")
	return strings.TrimPrefix(reason, kind+" "+name+": ")
}

// splitReasons splits "a (x; y); b" at the semicolons outside brackets:
// kinds join several reasons that way.
func splitReasons(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case ';':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// Legend names the symbols a plan used, in the order of the action table:
// "+ create  ~ rebuild  ? maybe".
func Legend(m *PlanJSON) string {
	var parts []string
	for _, a := range []plan.Action{plan.Create, plan.Rebuild, plan.Maybe, plan.Restore, plan.Fetch, plan.Repair, plan.Start, plan.Forget} {
		if m.Summary[a.Word()] > 0 {
			parts = append(parts, string(a)+" "+a.Word())
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "Symbols: " + strings.Join(parts, "  ")
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
