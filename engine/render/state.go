package render

import (
	"fmt"
	"io"
	"time"

	"github.com/kilnbuild/kiln/engine/human"
	"github.com/kilnbuild/kiln/engine/state"
)

// nothingRecorded is what the state views say before the first apply.
const nothingRecorded = "Nothing recorded yet: kiln apply builds the pipeline."

// StateList writes kiln state list: one row per record, with its kind,
// digest, status and when it was built.
func StateList(w io.Writer, records []*state.Record) {
	if len(records) == 0 {
		fmt.Fprintln(w, nothingRecorded)
		return
	}
	var rows [][]string
	for _, r := range records {
		status := "ok"
		if r.Failure != nil {
			status = "failed"
		}
		if !r.Good() {
			status = "failed (never built)"
		}
		when := "-"
		if !r.Started.IsZero() {
			when = r.Started.Local().Format(time.DateTime)
		}
		digest := human.Short(r.Digest)
		if digest == "" {
			digest = "-"
		}
		rows = append(rows, []string{r.Addr, r.Kind, digest, status, when})
	}
	Table(w, []string{"ADDRESS", "KIND", "DIGEST", "STATUS", "BUILT"}, rows)
}

// Records writes kiln show's view of every record, a blank line between
// two.
func Records(w io.Writer, records []*state.Record) {
	if len(records) == 0 {
		fmt.Fprintln(w, nothingRecorded)
		return
	}
	for i, r := range records {
		if i > 0 {
			fmt.Fprintln(w)
		}
		Record(w, r)
	}
}
