package main

import (
	"fmt"
	"strings"

	"github.com/kilnbuild/kiln/engine"
	"github.com/kilnbuild/kiln/engine/proc"
)

// printRecovered says what kiln found of an apply that died and what it did
// about it, one line per unfinished run.
func (c *cli) printRecovered(rs []engine.Recovered) {
	for _, r := range rs {
		var parts []string
		if len(r.Stopped) > 0 {
			parts = append(parts, "stopped "+pidsText(r.Stopped)+" it left running")
		}
		if len(r.Left) > 0 {
			parts = append(parts, pidsText(r.Left)+" still running after SIGKILL (check them with ps)")
		}
		if r.Kept {
			parts = append(parts, "kept its folder")
		} else {
			parts = append(parts, "removed its unfinished run")
		}
		fmt.Fprintf(c.stderr, "kiln: an earlier apply died while %s ran: %s\n", r.Addr, strings.Join(parts, "; "))
	}
}

func pidsText(ps []proc.Process) string {
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = fmt.Sprint(p.PID)
	}
	if len(ps) == 1 {
		return "process " + ids[0]
	}
	return "processes " + strings.Join(ids, ", ")
}
