package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/kilnbuild/kiln/engine/nolink"
	"github.com/kilnbuild/kiln/engine/proc"
)

// runLogName is the journal of runs in progress.
const runLogName = "running"

// RunLog is the journal of the runs an apply has in progress (dir/running):
// a line when a run starts (its node and run folder), one for each process
// group it starts, and one when it ends. Each line is one write(2), without
// fsync: it has to survive the death of kiln, not of the machine (whose
// processes die with it). The next command that takes the apply lock reads
// the runs that never ended (OpenRunLog), stops what they left running and
// cleans up their folders, and then clears the journal.
//
// A RunLog is safe for concurrent use; a nil *RunLog journals nothing.
type RunLog struct {
	path string
	mu   sync.Mutex
	f    *os.File
	open int // runs begun and not ended
}

// Interrupted is a run of an apply that died: one that began and never
// ended, or one that ended but whose record may not have reached the state
// (the state journal is written in batches; a run's end is not).
type Interrupted struct {
	Addr      string
	Entry     string // its run folder, KEY-RUN
	Resumable bool
	Groups    []proc.Group // the process groups it started
	Ended     bool         // none of its processes runs any more
}

type runLine struct {
	Op        string `json:"op"` // begin, group, end
	Entry     string `json:"entry"`
	Addr      string `json:"addr,omitempty"`
	Resumable bool   `json:"resumable,omitempty"`
	PGID      int    `json:"pgid,omitempty"`
	Start     uint64 `json:"start,omitempty"`
}

// OpenRunLog opens the run journal of the state folder dir, whose apply lock
// the caller holds, and returns the runs an earlier kiln that died left in
// it, in the order they began. The journal keeps them until Clear. (A
// journal exists only while an apply runs, or after one died: an apply that
// finishes removes it.)
func OpenRunLog(dir string) (*RunLog, []Interrupted, error) {
	runs, err := ReadRunLog(dir)
	if err != nil {
		return nil, nil, err
	}
	return &RunLog{path: filepath.Join(dir, runLogName)}, runs, nil
}

// ReadRunLog returns the runs in the journal of the state folder dir
// without opening it for writing or taking the apply lock, as kiln plan
// reads them. Whether they are an apply's in progress or a dead one's is
// the caller's to tell (the apply lock's holder).
func ReadRunLog(dir string) ([]Interrupted, error) {
	data, err := os.ReadFile(filepath.Join(dir, runLogName))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("reading the journal of running processes: %w", err)
	}
	return parseRunLog(data), nil
}

// HasRunLog reports whether the journal of dir holds anything: an apply
// runs, or one died and left runs for the next to settle.
func HasRunLog(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, runLogName))
	return err == nil && fi.Size() > 0
}

// parseRunLog returns the runs of a journal, those that ended marked so. A
// line that does not decode (torn by a crash) is skipped.
func parseRunLog(data []byte) []Interrupted {
	var order []string
	runs := map[string]*Interrupted{}
	for _, l := range bytes.Split(data, []byte{'\n'}) {
		var e runLine
		if len(l) == 0 || json.Unmarshal(l, &e) != nil || !ValidEntry(e.Entry) {
			continue
		}
		switch e.Op {
		case "begin":
			if runs[e.Entry] == nil {
				order = append(order, e.Entry)
			}
			runs[e.Entry] = &Interrupted{Addr: e.Addr, Entry: e.Entry, Resumable: e.Resumable}
		case "group":
			if r := runs[e.Entry]; r != nil && e.PGID > 1 {
				r.Groups = append(r.Groups, proc.Group{PGID: e.PGID, Start: e.Start})
			}
		case "end":
			if r := runs[e.Entry]; r != nil {
				r.Ended = true
			}
		}
	}
	var out []Interrupted
	for _, entry := range order {
		if r := runs[entry]; r != nil {
			out = append(out, *r)
			delete(runs, entry)
		}
	}
	return out
}

// Clear empties the journal, once the runs OpenRunLog returned are dealt with.
func (l *RunLog) Clear() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		if err := l.f.Truncate(0); err != nil {
			return fmt.Errorf("clearing %s: %w", l.path, err)
		}
		return nil
	}
	if err := os.Remove(l.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("clearing %s: %w", l.path, err)
	}
	return nil
}

func (l *RunLog) write(e runLine) error {
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		f, err := nolink.OpenFile(l.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("opening the journal of running processes: %s%w", spaceProblem(err), err)
		}
		l.f = f
	}
	if _, err := l.f.Write(line); err != nil {
		return fmt.Errorf("writing %s: %s%w; %s", l.path, spaceProblem(err), err, spaceAdvice(err))
	}
	switch e.Op {
	case "begin":
		l.open++
	case "end":
		l.open--
	}
	return nil
}

// Run is one run in the journal. It is a proc.Tracker, so the process
// groups the run starts are journaled as they start.
type Run struct {
	log   *RunLog
	entry string
}

// Begin journals that the run of addr in entry's folder starts. On error
// the run must not start: nothing could stop what it leaves should kiln die.
func (l *RunLog) Begin(addr, entry string, resumable bool) (*Run, error) {
	if l == nil {
		return &Run{}, nil
	}
	if err := l.write(runLine{Op: "begin", Entry: entry, Addr: addr, Resumable: resumable}); err != nil {
		return nil, err
	}
	return &Run{log: l, entry: entry}, nil
}

// GroupStarted journals a process group the run started. A failed write is
// not fatal: the next apply still finds the group's processes by the run
// folder in their environment.
func (r *Run) GroupStarted(g proc.Group) {
	if r.log != nil {
		_ = r.log.write(runLine{Op: "group", Entry: r.entry, PGID: g.PGID, Start: g.Start})
	}
}

// End journals that the run ended: none of its processes runs any more,
// except a service's, which its record then names.
func (r *Run) End() {
	if r.log != nil {
		_ = r.log.write(runLine{Op: "end", Entry: r.entry})
	}
}

// Close closes the journal, removing it when every run begun has ended.
func (l *RunLog) Close() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	if l.open == 0 {
		if rerr := os.Remove(l.path); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			err = errors.Join(err, rerr)
		}
	}
	return err
}
