package history

import (
	"bytes"
	"fmt"
	"time"

	"github.com/kilnbuild/kiln/engine/state"
)

// entry is one line of a run's journal.
type entry struct {
	Op     string    `json:"op"` // opBegin, opRunning, opFinished, opEnd
	Run    *Run      `json:"run,omitempty"`
	Node   *int      `json:"n,omitempty"`
	At     time.Time `json:"at,omitzero"`
	Result *Result   `json:"result,omitempty"`
	// Interrupted, in an end entry, says the apply was interrupted.
	Interrupted bool `json:"interrupted,omitempty"`
}

const (
	opBegin    = "begin"
	opRunning  = "running"
	opFinished = "finished"
	opEnd      = "end"
)

func encodeEntry(e entry) ([]byte, error) { return state.MarshalLine(e) }

func decodeEntry(line []byte) (entry, error) {
	var e entry
	err := state.UnmarshalLine(line, &e)
	return e, err
}

// replay rebuilds a run from its journal's content. An invalid last line
// is a write torn by a crash (or still in progress) and is ignored; an
// invalid line before it is an error.
func replay(path string, data []byte) (r *Run, ended, interrupted bool, err error) {
	lines := bytes.Split(data, []byte{'\n'})
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	for i, line := range lines {
		e, err := decodeEntry(line)
		if err != nil {
			if i == len(lines)-1 {
				break
			}
			return nil, false, false, fmt.Errorf("%s: line %d is damaged (%v); move the run's folder aside", path, i+1, err)
		}
		if r == nil {
			if e.Op != opBegin || e.Run == nil {
				return nil, false, false, fmt.Errorf("%s: it does not start with a begin entry; move the run's folder aside", path)
			}
			r = e.Run
			continue
		}
		switch e.Op {
		case opRunning, opFinished:
			if e.Node == nil || *e.Node < 0 || *e.Node >= len(r.Nodes) {
				return nil, false, false, fmt.Errorf("%s: line %d names no node of the run", path, i+1)
			}
			n := r.Nodes[*e.Node]
			if e.Op == opRunning {
				n.Began = e.At
				if e.Result != nil {
					n.Action, n.Reasons = e.Result.Action, e.Result.Reasons
				}
			} else if e.Result != nil {
				n.Result = *e.Result
			}
		case opEnd:
			r.Ended = e.At
			ended, interrupted = true, e.Interrupted
		}
	}
	if r == nil {
		return nil, false, false, fmt.Errorf("%s: empty: the apply stopped before it recorded anything", path)
	}
	return r, ended, interrupted, nil
}
