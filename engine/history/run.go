package history

import (
	"time"

	"github.com/kilnbuild/kiln/engine/plan"
)

// Run is one apply.
type Run struct {
	ID          int              `json:"id"`
	Started     time.Time        `json:"started"`
	Host        string           `json:"host,omitempty"`
	PID         int              `json:"pid,omitempty"`
	Command     string           `json:"command,omitempty"`
	Version     string           `json:"version,omitempty"` // kiln's
	Root        string           `json:"root"`              // the pipeline's folder
	Parallelism int              `json:"parallelism,omitempty"`
	Capacity    map[string]int64 `json:"capacity,omitempty"` // resource pools
	// Vars are the pipeline's variables as JSON, by name; a sensitive one
	// is "(sensitive)", never its value.
	Vars map[string]string `json:"vars,omitempty"`
	// Commit is the git commit checked out in the pipeline's repository
	// when the run began; "" outside one.
	Commit string  `json:"commit,omitempty"`
	Nodes  []*Node `json:"nodes"` // in dependency order

	// Set when the run is read back.
	Ended  time.Time `json:"-"` // when the end was recorded; zero without one
	Status Status    `json:"-"`
	Dir    string    `json:"-"` // the run's folder
}

// Status says whether a run finished.
type Status string

const (
	Complete    Status = "complete"
	Running     Status = "running"
	Interrupted Status = "interrupted" // by a signal, or kiln stopped before the end was recorded
)

// Node is one node of a run: what it is, from begin, and what happened to
// it, from its running and finished entries.
type Node struct {
	Addr      string           `json:"addr"`
	Kind      string           `json:"kind"`
	Deps      []int            `json:"deps,omitempty"` // indices of its dependencies in the run
	Resources map[string]int64 `json:"resources,omitempty"`
	Executor  string           `json:"executor,omitempty"`
	Metrics   bool             `json:"metrics,omitempty"` // it declares a metrics block

	// Machines is how many machines a batch job of the node spans (slurm
	// { nodes }); Resources are per machine. 0 means one.
	Machines int `json:"machines,omitempty"`

	Result
}

// Result is what happened to a node. Before its finished entry, Outcome is
// empty: the node is pending, or running when Began is set.
type Result struct {
	Action      string        `json:"action,omitempty"` // plan.Action's word
	Reasons     []plan.Reason `json:"reasons,omitempty"`
	Outcome     string        `json:"outcome,omitempty"` // run.Outcome
	Error       string        `json:"error,omitempty"`
	ExitCode    *int          `json:"exit_code,omitempty"` // of a command that ran and exited
	Started     time.Time     `json:"started,omitzero"`    // given its turn: a slot and its resources
	Began       time.Time     `json:"began,omitzero"`      // its command started
	Ended       time.Time     `json:"ended,omitzero"`
	Attempts    int           `json:"attempts,omitempty"`
	BytesHashed int64         `json:"bytes_hashed,omitempty"` // read to hash its result
	Log         string        `json:"log,omitempty"`          // relative to Run.Root
	// Devices are the devices (NPUs, GPUs) the node held, one entry per
	// pool: "npu 4-7".
	Devices []string `json:"devices,omitempty"`
	// Segments are the stretches of work of the node's result, for a node
	// with metrics whose result is not this run's work alone (resumed,
	// restored or up to date): its curves are theirs.
	Segments []Segment `json:"segments,omitempty"`
}

// Ready is when the node's dependencies in the run had all finished (the
// run's start for a node without any): from then until Started it waited
// for a slot or for pool resources.
func (r *Run) Ready(i int) time.Time {
	t := r.Started
	for _, d := range r.Nodes[i].Deps {
		if e := r.Nodes[d].Ended; e.After(t) {
			t = e
		}
	}
	return t
}

// Index returns the index of the node at addr, or -1.
func (r *Run) Index(addr string) int {
	for i, n := range r.Nodes {
		if n.Addr == addr {
			return i
		}
	}
	return -1
}

// End is when the run ended, or the latest time it recorded when it did
// not (still running, or interrupted).
func (r *Run) End() time.Time {
	if !r.Ended.IsZero() {
		return r.Ended
	}
	t := r.Started
	for _, n := range r.Nodes {
		for _, x := range []time.Time{n.Started, n.Began, n.Ended} {
			if x.After(t) {
				t = x
			}
		}
	}
	return t
}

// Failed is the label of a run that ended with nodes that failed: it did
// not do what it was asked, though it ran to its end.
const Failed Status = "failed"

// Label is what a run is called in a list or a report: its Status, or
// Failed when it ended (complete or interrupted) with a node that failed.
func (r *Run) Label() Status {
	if r.Status == Running {
		return r.Status
	}
	for _, n := range r.Nodes {
		if n.Outcome == "failed" {
			return Failed
		}
	}
	return r.Status
}
