package run

import (
	"time"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/state"
)

// Outcome is how a node's part of an apply ended.
type Outcome string

const (
	UpToDate  Outcome = "up-to-date"
	Built     Outcome = "built"
	Restored  Outcome = "restored"
	Fetched   Outcome = "fetched" // pulled from a remote cache
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
	Devices      map[string][]int // device ids the run held, per pool ({"npu": [0 1 2 3]})

	Reasons []plan.Reason // why Action was decided
	// Started is when the scheduler gave the node its turn (a slot and its
	// resources); Began when its command started (zero when none ran);
	// Ended when its part of the apply ended.
	Started, Began, Ended time.Time
	// BytesHashed counts the bytes read to hash the node's result (files
	// the stat cache vouched for are not read).
	BytesHashed int64
	// Trace is what a traced run read and ran (Options.Trace).
	Trace *TraceReport
	// Segments are the stretches of work that built the node's result:
	// those of a restored or up-to-date result, and of a resumed one (the
	// runs interrupted in its folder, then this one); Earlier is the time
	// a resumed result's earlier segments took.
	Segments []state.Segment
	Earlier  time.Duration
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

// Notes is implemented by hooks that show remarks about a node that are
// neither its output nor its failure: a remote cache that did not answer, a
// result that could not be pushed. The address is zero for remarks about the
// whole apply.
type Notes interface {
	Note(a addr.Node, msg string)
}

// Statuses is implemented by hooks that show a running node's state beside
// its last output line: a Slurm job's "PENDING (Resources)" or "RUNNING on
// a2-07".
type Statuses interface {
	Status(a addr.Node, status string)
}

// ByteCounter is implemented by hooks that show a transfer's progress (a
// pull from a remote cache); addr is the node's address as text.
type ByteCounter interface {
	Bytes(addr string, done, total int64)
}

// Uploads is implemented by hooks that show the pushes of results to a
// remote cache, which go on in the background after their node finished:
// Upload reports the bytes dealt with so far and the total, and
// UploadDone the end of the push, whether it succeeded or not.
type Uploads interface {
	Upload(addr string, done, total int64)
	UploadDone(addr string)
}

// DeviceHooks is implemented by hooks that show which devices a node holds.
// Devices is called just before Running, for a node that holds devices.
type DeviceHooks interface {
	Devices(a addr.Node, held map[string][]int)
}

// NoHooks ignores everything.
type NoHooks struct{}

func (NoHooks) Running(addr.Node, plan.Action, []plan.Reason) {}
func (NoHooks) Output(addr.Node, string)                      {}
func (NoHooks) Finished(NodeResult)                           {}

var _ DeviceHooks = Tee(nil)

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

// Devices passes the call on to the hooks that show devices.
func (t Tee) Devices(a addr.Node, held map[string][]int) {
	for _, h := range t {
		if d, ok := h.(DeviceHooks); ok {
			d.Devices(a, held)
		}
	}
}

func (t Tee) Finished(r NodeResult) {
	for _, h := range t {
		h.Finished(r)
	}
}

// Note passes the remark on to each of hooks that shows notes.
func (t Tee) Note(a addr.Node, msg string) {
	for _, h := range t {
		if n, ok := h.(Notes); ok {
			n.Note(a, msg)
		}
	}
}

// Status passes a node's state on to each of hooks that shows states.
func (t Tee) Status(a addr.Node, status string) {
	for _, h := range t {
		if s, ok := h.(Statuses); ok {
			s.Status(a, status)
		}
	}
}

// Upload passes a push's progress on to each of hooks that shows uploads.
func (t Tee) Upload(addr string, done, total int64) {
	for _, h := range t {
		if u, ok := h.(Uploads); ok {
			u.Upload(addr, done, total)
		}
	}
}

// UploadDone passes the end of a push on to each of hooks that shows
// uploads.
func (t Tee) UploadDone(addr string) {
	for _, h := range t {
		if u, ok := h.(Uploads); ok {
			u.UploadDone(addr)
		}
	}
}

// Bytes passes a transfer's progress on to each of hooks that counts bytes.
func (t Tee) Bytes(addr string, done, total int64) {
	for _, h := range t {
		if b, ok := h.(ByteCounter); ok {
			b.Bytes(addr, done, total)
		}
	}
}
