package engine

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/proc"
	"github.com/kilnbuild/kiln/engine/state"
)

// Recovered is a run that an apply which died (killed, or its machine
// restarted) left unfinished, as the next command holding the apply lock
// found and settled it.
type Recovered struct {
	Addr    string
	Entry   string         // its run folder, KEY-RUN
	Stopped []proc.Process // its processes that were still running, now stopped
	Left    []proc.Process // those still running after SIGKILL
	Kept    bool           // the folder is kept: a resumable node resumes there
}

// recoverGrace is how long processes left by a dead apply get between
// SIGTERM and SIGKILL.
const recoverGrace = 10 * time.Second

// recoverRuns settles the runs a dead apply left: it stops the processes
// of those that never ended — before anything new starts, so a leftover
// never races a new run for a port, a device or an in-place output — and
// then removes each run's folder that no record names (the record of a run
// that ended may not have reached the state), or, for a resumable node,
// records it as the folder to resume in. It reports the runs that never
// ended. The caller holds the apply lock and w; runs is cleared afterwards.
func recoverRuns(store *state.Store, w *state.Writer, runs *state.RunLog, interrupted []state.Interrupted) ([]Recovered, error) {
	if len(interrupted) == 0 {
		return nil, nil
	}
	var groups []proc.Group
	var markers []string
	var live []int // indexes of the runs that never ended
	for i, r := range interrupted {
		if r.Ended {
			continue
		}
		live = append(live, i)
		groups = append(groups, r.Groups...)
		markers = append(markers, store.RunMarkers(r.Entry)...)
	}
	// Attribute what runs to each run before stopping everything at once.
	owner := map[int]int{}
	for _, i := range live {
		r := interrupted[i]
		for _, p := range proc.Survivors(r.Groups, store.RunMarkers(r.Entry)) {
			if _, ok := owner[p.PID]; !ok {
				owner[p.PID] = i
			}
		}
	}
	var stopped, left []proc.Process
	if len(live) > 0 {
		stopped, left = proc.StopSurvivors(groups, markers, recoverGrace)
	}
	found := make([]Recovered, len(interrupted))
	for i, r := range interrupted {
		found[i] = Recovered{Addr: r.Addr, Entry: r.Entry}
	}
	for _, p := range stopped {
		if i, ok := owner[p.PID]; ok {
			found[i].Stopped = append(found[i].Stopped, p)
		}
	}
	for _, p := range left {
		if i, ok := owner[p.PID]; ok {
			found[i].Left = append(found[i].Left, p)
		}
	}
	var out []Recovered
	for i, r := range interrupted {
		switch {
		case w.Referenced(r.Entry):
			found[i].Kept = true // its record was committed before the apply died
		case !store.Exists(r.Entry):
		case r.Resumable && len(found[i].Left) == 0:
			if err := keepToResume(store, w, r); err != nil {
				return out, err
			}
			found[i].Kept = true
		case len(found[i].Left) == 0:
			if err := store.RemoveRun(r.Entry); err != nil {
				return out, err
			}
		}
		if !r.Ended {
			out = append(out, found[i])
		}
	}
	// A folder kept to resume in is recorded durably before the journal
	// stops naming its run.
	if err := w.Flush(); err != nil {
		return out, err
	}
	if err := runs.Clear(); err != nil {
		return out, err
	}
	return out, nil
}

// keepToResume records an interrupted run of a resumable node as its last
// failure, with the folder to resume in.
func keepToResume(store *state.Store, w *state.Writer, r state.Interrupted) error {
	key, _, _ := state.ParseEntry(r.Entry)
	var rec state.Record
	if cur, ok := w.Record(r.Addr); ok {
		rec = *cur
	} else {
		rec = state.Record{Addr: r.Addr}
		if a, err := addr.Parse(r.Addr); err == nil {
			rec.Kind = a.Kind
		}
	}
	earlier := rec.SegmentsIn(r.Entry)
	rec.Failure = &state.Failure{Key: key, Entry: r.Entry, ExitCode: -1, At: time.Now().UTC(),
		Error: "interrupted: the kiln apply running it was killed", Segments: earlier}
	if seg, ok := killedSegment(filepath.Dir(store.Root()), r.Addr, key, earlier); ok {
		rec.Failure.Segments, rec.Failure.Log = append(earlier, seg), seg.Log
	}
	if err := w.Commit(&rec); err != nil {
		return fmt.Errorf("recording the interrupted run of %s: %w", r.Addr, err)
	}
	return nil
}

// settle opens the run journal of the state folder dir and settles what a
// dead apply left (recoverRuns). The caller holds the apply lock and w.
func settle(dir string, store *state.Store, w *state.Writer) (*state.RunLog, []Recovered, error) {
	runs, interrupted, err := state.OpenRunLog(dir)
	if err != nil {
		return nil, nil, err
	}
	rec, err := recoverRuns(store, w, runs, interrupted)
	return runs, rec, err
}
