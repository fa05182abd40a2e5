package render

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/kilnbuild/kiln/engine/human"
	"github.com/kilnbuild/kiln/engine/run"
)

// NothingToApply is apply's closing line when the memo (engine/memo)
// held: nothing was decided and nothing ran.
func NothingToApply(w io.Writer, upToDate int) {
	fmt.Fprintf(w, "Apply: %d %s (nothing to do).\n", upToDate, run.UpToDate)
}

// ApplySummary is the closing line of an apply.
func ApplySummary(r *run.Result, took time.Duration) string {
	var parts []string
	for _, o := range []run.Outcome{run.Built, run.Started, run.Fetched, run.Restored, run.UpToDate, run.Failed, run.Skipped, run.Cancelled} {
		if n := r.Count(o); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, o))
		}
	}
	if n := len(r.Forgotten); n > 0 {
		parts = append(parts, fmt.Sprintf("%d forgotten", n))
	}
	if len(parts) == 0 {
		parts = append(parts, "nothing to do")
	}
	mismatches := 0
	for _, n := range r.Nodes {
		if n.LockMismatch != nil {
			mismatches++
		}
	}
	if mismatches > 0 {
		parts = append(parts, human.Count(mismatches, "lock mismatch"))
	}
	var b strings.Builder
	for _, a := range r.Forgotten {
		fmt.Fprintf(&b, "- %s forgotten: no longer in the configuration; its result stays in the store until kiln gc\n", a)
	}
	fmt.Fprintf(&b, "Apply: %s (%s).", strings.Join(parts, ", "), round(took))
	return b.String()
}
