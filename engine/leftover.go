package engine

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/proc"
	"github.com/kilnbuild/kiln/engine/state"
)

// leftRun is a run that an apply which died left in the run journal, as a
// plan sees it before the next apply settles it (recoverRuns).
type leftRun struct {
	state.Interrupted
	Running []proc.Process // its processes that still run
}

// deadApplyRuns reads the runs a dead apply left in the journal of the
// state folder dir, with the processes of each that still run. It reads
// only: nothing is stopped, removed or cleared. None while an apply holds
// the lock: the journal is then that apply's own.
func deadApplyRuns(dir string, store *state.Store) []leftRun {
	if !state.HasRunLog(dir) || state.HolderAlive(dir) {
		return nil
	}
	runs, err := state.ReadRunLog(dir)
	if err != nil {
		return nil // the apply that settles them says what is wrong
	}
	out := make([]leftRun, len(runs))
	for i, r := range runs {
		out[i].Interrupted = r
		if !r.Ended {
			out[i].Running = proc.Survivors(r.Groups, store.RunMarkers(r.Entry))
		}
	}
	return out
}

// annotateLeftRuns adds to a plan what a dead apply left running or
// unfinished, as the next apply will settle it: a resumable node whose
// interrupted run has its key resumes in that run's folder, and a node whose
// run still has processes says so (apply stops them before anything runs).
// Processes of a node the plan does not run are a warning.
func (w *Workspace) annotateLeftRuns(pl *plan.Plan) hcl.Diagnostics {
	runs := deadApplyRuns(w.pipeline.StateDir, w.store)
	if len(runs) == 0 {
		return nil
	}
	byAddr := map[string][]leftRun{}
	for _, r := range runs {
		byAddr[r.Addr] = append(byAddr[r.Addr], r)
	}
	var diags hcl.Diagnostics
	for _, d := range pl.Changes {
		left := byAddr[d.Node.Addr.String()]
		delete(byAddr, d.Node.Addr.String())
		var first []plan.Reason
		for _, r := range left {
			if w.resumesIn(d, r) {
				first = append(first, plan.ResumeReason(w.store, w.pipeline.Root, r.Entry))
			}
			switch {
			case len(r.Running) == 0:
			case d.Action == plan.NoOp:
				diags = append(diags, leftRunningWarning(r))
			default:
				first = append(first, plan.Reason{Kind: plan.ReasonLeftRunning, Subject: pidList(r.Running)})
			}
		}
		d.Reasons = append(first, d.Reasons...)
	}
	for _, r := range runs {
		if _, other := byAddr[r.Addr]; other && len(r.Running) > 0 {
			diags = append(diags, leftRunningWarning(r))
		}
	}
	return diags
}

// resumesIn reports whether the apply that settles r will keep its folder
// for d's node to resume in: r is an unfinished run of a resumable node with
// d's key that no record names, and d runs the node.
func (w *Workspace) resumesIn(d *plan.Decision, r leftRun) bool {
	if !d.Action.Runs() || !d.Node.Meta.Resumable || !r.Resumable || d.Key == "" || w.decider.Replaced(d.Node) {
		return false
	}
	for _, reason := range d.Reasons {
		if reason.Kind == plan.ReasonResume {
			return false
		}
	}
	key, _, ok := state.ParseEntry(r.Entry)
	return ok && key == d.Key && !w.state.Referenced(r.Entry) && w.store.Exists(r.Entry)
}

func leftRunningWarning(r leftRun) *hcl.Diagnostic {
	what, verb, them := "process "+pidList(r.Running), "runs", "it"
	if len(r.Running) > 1 {
		what, verb, them = "processes "+pidList(r.Running), "run", "them"
	}
	return &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Processes left running",
		Detail: fmt.Sprintf("%s: %s of a run that an apply which died left still %s; the next kiln apply, destroy or gc stops %s.", r.Addr, what, verb, them)}
}

func pidList(ps []proc.Process) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = strconv.Itoa(p.PID)
	}
	return strings.Join(s, ", ")
}
