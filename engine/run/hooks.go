package run

import (
	"time"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/plan"
)

// Outcome is how a node's part of an apply ended.
type Outcome string

const (
	UpToDate  Outcome = "up-to-date"
	Built     Outcome = "built"
	Restored  Outcome = "restored"
	Started   Outcome = "started"
	Failed    Outcome = "failed"
	Skipped   Outcome = "skipped"   // a dependency failed
	Cancelled Outcome = "cancelled" // interrupted, or not started after -fail-fast
)

// NodeResult is what happened to one node.
type NodeResult struct {
	Addr     addr.Node
	Action   plan.Action // what was decided when the node's turn came
	Outcome  Outcome
	Err      error
	Duration time.Duration
	Log      string   // path of the node's log, when it ran
	LogTail  []string // last lines of the log of a failed run
	// LogErr, when set, says that the log file misses output it could not
	// write (a full disk); the node itself ran on.
	LogErr   error
	Attempts int
	// LockMismatch is set when the node was built with the key
	// kiln.lock.hcl records but its digest differs.
	LockMismatch *plan.LockMismatch

	Reasons []plan.Reason // why Action was decided
	// Started is when the scheduler gave the node its turn (a slot and its
	// resources); Began when its command started (zero when none ran);
	// Ended when its part of the apply ended.
	Started, Began, Ended time.Time
	// BytesHashed counts the bytes read to hash the node's result (files
	// the stat cache vouched for are not read).
	BytesHashed int64
}

// Hooks receive the progress of an apply.
type Hooks interface {
	// Running is called when a node starts running its command (not for
	// nodes that are up to date or restored).
	Running(a addr.Node, action plan.Action, reasons []plan.Reason)
	// Output is called with each line a running node writes.
	Output(a addr.Node, line string)
	// Finished is called once per node in scope.
	Finished(r NodeResult)
}

// NoHooks ignores everything.
type NoHooks struct{}

func (NoHooks) Running(addr.Node, plan.Action, []plan.Reason) {}
func (NoHooks) Output(addr.Node, string)                      {}
func (NoHooks) Finished(NodeResult)                           {}

// Tee is Hooks that passes every call to each of hooks, in order.
type Tee []Hooks

func (t Tee) Running(a addr.Node, action plan.Action, reasons []plan.Reason) {
	for _, h := range t {
		h.Running(a, action, reasons)
	}
}

func (t Tee) Output(a addr.Node, line string) {
	for _, h := range t {
		h.Output(a, line)
	}
}

func (t Tee) Finished(r NodeResult) {
	for _, h := range t {
		h.Finished(r)
	}
}
