package state

import (
	"fmt"
	"time"
)

// CorruptError reports a state file kiln cannot read. The file is left as it
// was; Advice says what the user can do about it.
type CorruptError struct {
	Path    string // the damaged file
	Problem string // what is wrong with it
	Advice  string // what the user can do
	Err     error  // underlying decode error, if any
}

func (e *CorruptError) Error() string {
	msg := fmt.Sprintf("state file %s is unreadable: %s", e.Path, e.Problem)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	if e.Advice != "" {
		msg += "; " + e.Advice
	}
	return msg
}

func (e *CorruptError) Unwrap() error { return e.Err }

// LockedError reports that another process holds the apply lock.
type LockedError struct {
	Dir    string // the state folder
	Holder Holder // what the holder wrote into the lock file; zero if unknown
}

func (e *LockedError) Error() string {
	h := e.Holder
	if h.PID == 0 {
		return fmt.Sprintf("another kiln apply holds the lock on %s (holder unknown: it has not written its details yet); wait for it or stop it", e.Dir)
	}
	msg := fmt.Sprintf("another kiln apply holds the lock on %s: pid %d", e.Dir, h.PID)
	if h.Host != "" {
		msg += " on host " + h.Host
	}
	if !h.Started.IsZero() {
		msg += ", started " + h.Started.Format(time.RFC3339)
	}
	if h.Command != "" {
		msg += " (" + h.Command + ")"
	}
	return msg + "; wait for it or stop it"
}
