package slurm

import (
	"strconv"
	"strings"
)

// State is a job state as Slurm spells it (squeue -t, sacct).
type State string

const (
	Pending     State = "PENDING"
	Running     State = "RUNNING"
	Completing  State = "COMPLETING"
	Completed   State = "COMPLETED"
	Failed      State = "FAILED"
	Timeout     State = "TIMEOUT"
	OutOfMemory State = "OUT_OF_MEMORY"
	NodeFail    State = "NODE_FAIL"
	Preempted   State = "PREEMPTED"
	Cancelled   State = "CANCELLED"
	BootFail    State = "BOOT_FAIL"
	Deadline    State = "DEADLINE"
	// Unknown: neither squeue nor sacct knows the job (it left the
	// controller's memory and the cluster keeps no accounting).
	Unknown State = "UNKNOWN"
)

// Final reports whether the job has ended: nothing of it runs any more.
func (s State) Final() bool {
	switch s {
	case Completed, Failed, Timeout, OutOfMemory, NodeFail, Preempted, Cancelled, BootFail, Deadline, Unknown, "REVOKED", "SPECIAL_EXIT":
		return true
	}
	return false
}

// Status is what the cluster says of one job.
type Status struct {
	ID       string
	State    State
	Reason   string // why it pends ("Resources", "Priority"), or "None"
	Nodes    string // where it runs or ran, Slurm's node list ("a[1-2]")
	ExitCode int    // the batch script's exit status, once final
	Signal   int    // the signal that ended it, if any
}

// String is the status as kiln shows it: "PENDING (Resources)",
// "RUNNING on a2-07", "FAILED with exit code 3".
func (s Status) String() string {
	switch {
	case s.State == Pending && s.Reason != "" && s.Reason != "None":
		return string(s.State) + " (" + s.Reason + ")"
	case (s.State == Running || s.State == Completing) && s.Nodes != "":
		return string(s.State) + " on " + s.Nodes
	case s.State == Failed && s.Signal != 0:
		return string(s.State) + " by signal " + strconv.Itoa(s.Signal)
	case s.State == Failed:
		return string(s.State) + " with exit code " + strconv.Itoa(s.ExitCode)
	}
	return string(s.State)
}

// squeueFormat asks squeue for one line per job: id, its array's id and
// index, state, reason, nodes and the raw wait status (exit code << 8 |
// signal). With -r every element of an array has its own line.
const squeueFormat = "JobID:|,ArrayJobID:|,ArrayTaskID:|,State:|,Reason:|,NodeList:|,exit_code:|"

// ElementID is how Slurm names element i of array job id: "ID_I".
func ElementID(id string, i int) string { return id + "_" + strconv.Itoa(i) }

// parseSqueue reads lines in squeueFormat. An array element is named
// ARRAY_INDEX whatever job id it runs as.
func parseSqueue(out string) map[string]Status {
	got := map[string]Status{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(strings.TrimSpace(line), "|")
		if len(f) < 7 || f[0] == "" {
			continue
		}
		id := strings.TrimSpace(f[0])
		if i, err := strconv.Atoi(strings.TrimSpace(f[2])); err == nil {
			id = ElementID(strings.TrimSpace(f[1]), i)
		}
		f = f[2:]
		s := Status{ID: id, State: normState(f[1]), Reason: strings.TrimSpace(f[2]), Nodes: strings.TrimSpace(f[3])}
		if w, err := strconv.Atoi(strings.TrimSpace(f[4])); err == nil {
			s.ExitCode, s.Signal = w>>8&0xff, w&0x7f
		}
		got[s.ID] = s
	}
	return got
}

// sacctFormat: JobID|State|ExitCode|NodeList|Reason, with -P -X -n; an
// array element's JobID is ARRAY_INDEX.
const sacctFormat = "JobID,State,ExitCode,NodeList,Reason"

// parseSacct reads sacct -P lines in sacctFormat. State may read
// "CANCELLED by 0"; ExitCode is "code:signal".
func parseSacct(out string) map[string]Status {
	got := map[string]Status{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(strings.TrimSpace(line), "|")
		if len(f) < 5 || f[0] == "" {
			continue
		}
		s := Status{ID: f[0], State: normState(f[1]), Nodes: f[3], Reason: f[4]}
		code, sig, _ := strings.Cut(f[2], ":")
		s.ExitCode, _ = strconv.Atoi(code)
		s.Signal, _ = strconv.Atoi(sig)
		got[s.ID] = s
	}
	return got
}

// normState keeps the first word: "CANCELLED by 1000" is CANCELLED.
func normState(s string) State {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, ' '); i >= 0 {
		s = s[:i]
	}
	return State(strings.TrimSuffix(s, "+"))
}
