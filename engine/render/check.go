package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/kilnbuild/kiln/engine/human"
	"github.com/kilnbuild/kiln/engine/run"
)

// Check writes kiln apply -check: a line per node, with the files that
// differ or the log of a rebuild that failed, then a count per status.
func Check(w io.Writer, res []run.CheckResult) {
	counts := map[run.CheckStatus]int{}
	for _, r := range res {
		counts[r.Status]++
		checkResult(w, r)
	}
	var parts []string
	for _, s := range []run.CheckStatus{run.Reproduced, run.Mismatch, run.NotDeterministic, run.CheckFailed, run.CheckSkipped} {
		if counts[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[s], strings.ToLower(string(s))))
		}
	}
	if len(parts) == 0 {
		parts = []string{"no nodes"}
	}
	fmt.Fprintf(w, "Check: %s.\n", strings.Join(parts, ", "))
}

func checkResult(w io.Writer, r run.CheckResult) {
	switch r.Status {
	case run.Reproduced:
		where := ""
		if r.InScratch {
			where = "; built in scratch"
		}
		fmt.Fprintf(w, "%s: reproduced (digest %s, as in %s%s)\n", r.Addr, human.Short(r.Got), r.Against, where)
	case run.Mismatch, run.NotDeterministic:
		note := ""
		if r.Status == run.NotDeterministic {
			note = " (deterministic = false: reported, not failed)"
		}
		fmt.Fprintf(w, "%s: %s: digest %s in %s, rebuilt %s%s\n", r.Addr, r.Status, human.Short(r.Want), r.Against, human.Short(r.Got), note)
		for _, f := range r.Files {
			fmt.Fprintf(w, "    differs: %s\n", f)
		}
		if len(r.Files) == 0 && r.InScratch {
			fmt.Fprintf(w, "    (built in scratch; the locked result is not in this machine's store, so the files that differ cannot be named)\n")
		}
	case run.CheckFailed:
		fmt.Fprintf(w, "%s: rebuild failed: %v\n", r.Addr, r.Err)
		for _, l := range r.LogTail {
			fmt.Fprintf(w, "    | %s\n", l)
		}
	default:
		fmt.Fprintf(w, "%s: skipped: %s\n", r.Addr, r.Reason)
	}
}
