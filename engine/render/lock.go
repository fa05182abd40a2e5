package render

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/kilnbuild/kiln/engine/human"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/lockfile"
	"github.com/kilnbuild/kiln/engine/run"
)

// Resolutions writes what kiln lock did per node: pins resolved or kept
// to out, pins that could not be resolved to errs. It reports whether one
// could not be.
func Resolutions(out, errs io.Writer, res []lockfile.Resolution) (failed bool) {
	for _, r := range res {
		switch r.Status {
		case lockfile.Pinned, lockfile.Kept:
			line := fmt.Sprintf("%s: %s %s", r.Addr, r.Status, pinText(r.Pins))
			if r.Old != nil {
				line += " (was " + pinText(r.Old) + ")"
			}
			fmt.Fprintln(out, line)
		case lockfile.NeedsBuild:
			msg := strings.TrimPrefix(r.Err.Error(), kind.ErrPinNeedsBuild.Error()+": ")
			if r.Old != nil {
				fmt.Fprintf(out, "%s: dropped %s: %s\n", r.Addr, pinText(r.Old), msg)
				continue
			}
			fmt.Fprintf(out, "%s: not pinned: %s\n", r.Addr, msg)
		default:
			failed = true
			fmt.Fprintf(errs, "kiln lock: %s: %v\n", r.Addr, r.Err)
		}
	}
	return failed
}

// pinText writes pins as name=value pairs, the resolved value first.
func pinText(pins map[string]string) string {
	if len(pins) == 0 {
		return "nothing (the configuration pins it itself)"
	}
	names := make([]string, 0, len(pins))
	for n := range pins {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		wi, wj := pinWeight(names[i]), pinWeight(names[j])
		return wi < wj || wi == wj && names[i] < names[j]
	})
	var parts []string
	for _, n := range names {
		parts = append(parts, n+"="+pins[n])
	}
	return strings.Join(parts, " ")
}

func pinWeight(name string) int {
	switch name {
	case "commit", "checksum", "revision":
		return 0
	}
	return 1
}

// LockMismatches warns, loudly, of every node an apply built with the key
// kiln.lock.hcl records whose digest differs from the lock's.
func LockMismatches(w io.Writer, res *run.Result) {
	for _, n := range res.Nodes {
		m := n.LockMismatch
		if m == nil {
			continue
		}
		fmt.Fprintf(w, "kiln apply: warning: %s was built with the key kiln.lock.hcl records, but its digest differs: %s in kiln.lock.hcl, %s now; the build does not reproduce the lock (-strict makes this an error)\n", n.Addr, human.Short(m.Locked), human.Short(m.Built))
		for _, f := range m.Files {
			fmt.Fprintf(w, "    differs: %s\n", f)
		}
	}
}
