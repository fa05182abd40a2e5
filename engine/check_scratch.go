package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/human"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/run"
	"github.com/kilnbuild/kiln/engine/state"
)

// checkInScratch is apply -check for the nodes never built here (a fresh
// clone): it applies them, with what they depend on, in a scratch state
// folder under .kiln/check — its own store, links and logs, the pipeline's
// lock read but never written — and compares each node's digest with
// kiln.lock.hcl. Keys hold no state folder path, so a scratch build has the
// key a real one would. The scratch folder is removed afterwards; nothing
// of the real state, store or lock changes.
//
// Nodes that cannot be built in scratch are skipped with the reason:
// services (a running process, not a build), nodes with in-place outputs
// (a scratch build would write them into the pipeline folder) and nodes
// that need one of those.
func (w *Workspace) checkInScratch(ctx context.Context, pl *plan.Plan, named map[addr.Node]bool) map[addr.Node]run.CheckResult {
	out, targets := w.scratchTargets(pl, named)
	if len(targets) == 0 {
		return out
	}
	fail := func(err error) map[addr.Node]run.CheckResult {
		for _, a := range targets {
			r := out[a]
			r.Status, r.Err = run.CheckFailed, err
			out[a] = r
		}
		return out
	}
	if err := os.MkdirAll(filepath.Join(w.pipeline.StateDir, "check"), 0o755); err != nil {
		return fail(err)
	}
	dir, err := os.MkdirTemp(filepath.Join(w.pipeline.StateDir, "check"), "scratch-")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(dir)
	o := w.opts
	o.StateDir, o.Targets, o.Replace, o.DebugKey = dir, targets, nil, nil
	sw, diags, err := Open(o)
	if err == nil && diags.HasErrors() {
		err = diags
	}
	if err != nil {
		return fail(fmt.Errorf("opening the scratch state: %w", err))
	}
	sw.scratch = true
	res, err := sw.Apply(ctx, ApplyOptions{Parallelism: 2, Command: "kiln apply -check", KeepRuns: -1})
	if err != nil && res == nil {
		return fail(err)
	}
	results := map[addr.Node]run.NodeResult{}
	if res != nil {
		for _, nr := range res.Nodes {
			results[nr.Addr] = nr
		}
	}
	for _, a := range targets {
		out[a] = w.scratchResult(sw, out[a], results[a])
	}
	return out
}

// scratchTargets are the check results of the nodes of pl not built here
// that a scratch build cannot check, and the nodes it builds (named, when
// any is, else all): its result is compared with kiln.lock.hcl's.
func (w *Workspace) scratchTargets(pl *plan.Plan, named map[addr.Node]bool) (map[addr.Node]run.CheckResult, []addr.Node) {
	out := map[addr.Node]run.CheckResult{}
	cannot := map[addr.Node]string{}
	var targets []addr.Node
	for _, dec := range pl.Changes {
		n := dec.Node
		why := ""
		for _, dep := range n.Deps {
			if c, ok := cannot[dep]; ok {
				why = "needs " + dep.String() + ", which cannot be built in scratch (" + c + ")"
				break
			}
		}
		switch {
		case why != "":
		case kind.IsService(dec.Kind):
			why = "a service is a running process, not a build"
		case w.writesInPlace(n.Addr):
			why = "it writes in-place outputs, which a scratch build would write into the pipeline folder"
		}
		if why != "" {
			cannot[n.Addr] = why
		}
		if dec.Record.Good() || len(named) > 0 && !named[n.Addr] && !named[n.Addr.Block()] {
			continue
		}
		r := run.CheckResult{Addr: n.Addr, Status: run.CheckSkipped, Against: "kiln.lock.hcl"}
		locked, inLock := w.lock.Nodes[n.Addr.String()]
		switch {
		case why != "":
			r.Reason = why
		case !inLock:
			r.Reason = "never built, and kiln.lock.hcl has no entry for it to compare with"
		case !n.Meta.Deterministic && len(named) == 0:
			r.Reason = "deterministic = false (name it to rebuild it anyway)"
		default:
			r.Want = locked.Digest
			targets = append(targets, n.Addr)
		}
		out[n.Addr] = r
	}
	return out, targets
}

// scratchResult is the check result r of one node the scratch workspace
// sw built (nr), against kiln.lock.hcl.
func (w *Workspace) scratchResult(sw *Workspace, r run.CheckResult, nr run.NodeResult) run.CheckResult {
	a := r.Addr
	r.InScratch = true
	rec := sw.state.Records[a.String()]
	locked := w.lock.Nodes[a.String()]
	switch {
	case !rec.Good() || rec.Failure != nil:
		r.Status, r.Err, r.LogTail = run.CheckFailed, nr.Err, nr.LogTail
		if r.Err == nil {
			r.Err = fmt.Errorf("%s", nr.Outcome)
		}
	case rec.Key != locked.Key:
		r.Reason = fmt.Sprintf("kiln.lock.hcl records another key (%s; built here %s): the pipeline, its inputs or its pins changed since the lock was written", human.Short(locked.Key), human.Short(rec.Key))
	default:
		r.Got = rec.Digest
		r.Status = run.Reproduced
		if r.Got != r.Want {
			r.Status = run.Mismatch
			if n := w.pipeline.Node(a); n != nil && !n.Meta.Deterministic {
				r.Status = run.NotDeterministic
			}
			r.Files = w.filesDiffering(r.Want, sw.store.RunPath(rec.Entry))
		}
	}
	return r
}

// writesInPlace reports whether a node declares in-place outputs.
func (w *Workspace) writesInPlace(a addr.Node) bool {
	n := w.pipeline.Node(a)
	if n == nil {
		return false
	}
	list, ok := w.pipeline.StaticStrings(n, "outputs")
	return ok && len(list) > 0
}

// filesDiffering names the files that differ between the result with
// digest want, when this machine's store still holds it, and the folder
// got; nil when it does not (a fresh clone has only the lock's digest).
func (w *Workspace) filesDiffering(want, got string) []string {
	for _, recs := range []map[string]*state.Record{w.state.Records, w.state.History} {
		for _, r := range recs {
			if r.Good() && r.Digest == want && w.store.Exists(r.Entry) {
				a, err := hash.Manifest(w.store.RunPath(r.Entry), nil)
				if err != nil {
					return nil
				}
				b, err := hash.Manifest(got, nil)
				if err != nil {
					return nil
				}
				return hash.DiffManifests(a, b)
			}
		}
	}
	return nil
}
