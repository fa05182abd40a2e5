package render

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/kilnbuild/kiln/engine/human"
	"github.com/kilnbuild/kiln/engine/pool"
	"github.com/kilnbuild/kiln/engine/state"
)

// Record writes what the state holds of one node: its result, where it
// came from, its attributes, its last failure and its key lines.
func Record(w io.Writer, r *state.Record) {
	fmt.Fprintf(w, "%s (%s)\n", r.Addr, r.Kind)
	if r.Good() {
		fmt.Fprintf(w, "  digest   %s\n  key      %s\n  entry    %s\n", r.Digest, r.Key, r.Entry)
		fmt.Fprintf(w, "  built    %s in %s on %s (kiln %s)\n", r.Started.Local().Format(time.DateTime), r.Duration.Round(time.Millisecond), r.Host, r.KilnVersion)
		if r.Log != "" {
			fmt.Fprintf(w, "  log      %s\n", r.Log)
		}
		segments(w, "segment", r.Segments)
	}
	for _, o := range r.Outputs {
		fmt.Fprintf(w, "  output   %s %s\n", o.Path, human.Short(o.Digest))
	}
	if len(r.Resources) > 0 {
		fmt.Fprintf(w, "  resources %v\n", r.Resources)
	}
	if len(r.Devices) > 0 {
		fmt.Fprintf(w, "  devices  %s\n", pool.HeldText(r.Devices))
	}
	keys := make([]string, 0, len(r.Attrs))
	for k := range r.Attrs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "  attr     %s = %s\n", k, oneLine(r.Attrs[k], 100))
	}
	if f := r.Failure; f != nil {
		fmt.Fprintf(w, "  failed   %s: %s (log %s)\n", f.At.Local().Format(time.DateTime), oneLine(f.Error, 200), f.Log)
		if len(f.Devices) > 0 {
			fmt.Fprintf(w, "  failed on %s\n", pool.HeldText(f.Devices))
		}
		if f.Entry != "" && len(f.Segments) > 0 {
			fmt.Fprintf(w, "  kept     %s to resume in, after %s of work\n", f.Entry, state.TotalDuration(f.Segments).Round(time.Millisecond))
			segments(w, "run", f.Segments)
		}
	}
	if len(r.KeyLines) > 0 {
		fmt.Fprintln(w, "  key lines:")
		for _, l := range r.KeyLines {
			fmt.Fprintf(w, "    %s\n", l.Show())
		}
	}
}

func oneLine(s string, max int) string {
	s = strings.ReplaceAll(s, "\n", " ⏎ ")
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}

// segments lists the stretches of work of a resumed result, or of the
// interrupted runs a kept folder holds.
func segments(w io.Writer, word string, segs []state.Segment) {
	if word == "segment" && len(segs) < 2 {
		return
	}
	for i, s := range segs {
		fmt.Fprintf(w, "  %-8s %d: %s for %s (log %s)\n", word, i+1, s.Started.Local().Format(time.DateTime), s.Duration.Round(time.Millisecond), s.Log)
	}
}
