package engine

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/run"
	"github.com/kilnbuild/kiln/engine/state"
)

// killedSegment is the stretch of work that the run of a killed apply made
// in the folder kept to resume in, read from its log: the log's name holds
// the run's start, and it was last written when the run stopped. known are
// the segments recorded already; ok is false when the log is one of them,
// or there is none.
func killedSegment(stateDir, node, key string, known []state.Segment) (state.Segment, bool) {
	a, err := addr.Parse(node)
	if err != nil || len(key) < 12 {
		return state.Segment{}, false
	}
	dir := run.LogDir(stateDir, a)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return state.Segment{}, false
	}
	suffix := run.RunLogSuffix(key)
	for i := len(entries) - 1; i >= 0; i-- { // names sort by start time
		name := entries[i].Name()
		if !strings.HasSuffix(name, suffix) {
			continue
		}
		start, err := time.Parse("20060102T150405.000000000Z", strings.TrimSuffix(name, suffix))
		info, ierr := entries[i].Info()
		if err != nil || ierr != nil {
			return state.Segment{}, false
		}
		log, _ := filepath.Rel(filepath.Dir(stateDir), filepath.Join(dir, name))
		if slices.ContainsFunc(known, func(s state.Segment) bool { return s.Log == log }) {
			return state.Segment{}, false
		}
		took := max(info.ModTime().Sub(start), 0)
		return state.Segment{Started: start.UTC(), Duration: took, Log: log}, true
	}
	return state.Segment{}, false
}
