package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/lockfile"
	"github.com/kilnbuild/kiln/engine/memo"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/run"
	"github.com/kilnbuild/kiln/engine/state"
)

func (w *Workspace) lockPath() string { return lockfile.Path(w.pipeline.Root) }

// loadLock reads kiln.lock.hcl. A broken lock stops the command with
// diagnostics that point at its line; it is never rewritten.
func (w *Workspace) loadLock() hcl.Diagnostics {
	f, hf, diags := lockfile.LoadCached(w.lockPath(), filepath.Join(w.pipeline.StateDir, "cache"))
	if diags.HasErrors() {
		if hf != nil {
			w.pipeline.Files[w.lockPath()] = hf // so the diagnostics show the line
		}
		return diags
	}
	w.lock = f
	return nil
}

// recordLock writes what an apply left up to date into kiln.lock.hcl: the
// node entries and resolved pins of nodes built, restored or found up to
// date. Entries of nodes that left the configuration are dropped (not after
// a -target apply); the rest are kept.
func (w *Workspace) recordLock(res *run.Result) error {
	lf := w.lock.Clone()
	vary := &variations{p: w.pipeline, seen: map[addr.Node]variation{}}
	for _, n := range res.Nodes {
		switch n.Outcome {
		case run.Built, run.Restored, run.UpToDate, run.Started:
			rec := w.state.Records[n.Addr.String()]
			switch vary.of(n.Addr) {
			case ownVaries:
				lf.RecordVarying(rec)
			case aboveVaries:
				lf.RecordPinsOnly(rec)
			default:
				lf.Record(rec)
			}
		}
	}
	if len(w.opts.Targets) == 0 {
		// Entries of nodes another pipeline file of the folder recorded
		// stay: that pipeline's apply drops them (see plan.Decider.Leaves).
		lf.Retain(func(s string) bool {
			a, err := addr.Parse(s)
			if err == nil && w.pipeline.Node(a) != nil {
				return true
			}
			r := w.state.Records[s]
			return r != nil && !w.decider.Leaves(r)
		})
	}
	if err := lf.Write(w.lockPath()); err != nil {
		return fmt.Errorf("updating %s: %w", lockfile.FileName, err)
	}
	w.lock = lf
	return nil
}

// hold takes the apply lock for a command that must not run beside an
// apply, and reloads the state and the lock under it.
func (w *Workspace) hold(command string) (release func(), err error) {
	dir := w.pipeline.StateDir
	if err := state.MakeDir(dir); err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	l, err := state.AcquireLock(dir, state.Holder{PID: os.Getpid(), Host: host, Started: time.Now().UTC(), Command: command})
	if err != nil {
		return nil, err
	}
	if err := w.loadState(); err != nil {
		l.Release()
		return nil, err
	}
	if d := w.loadLock(); d.HasErrors() {
		l.Release()
		return nil, d
	}
	moves, d := w.findMoves()
	if d.HasErrors() {
		l.Release()
		return nil, d
	}
	w.moveInMemory(moves)
	w.bindDecider()
	return func() { l.Release() }, nil
}

// matchNodes resolves addresses a user typed; a block address stands for
// all its instances.
func (w *Workspace) matchNodes(list []addr.Node) (map[addr.Node]bool, error) {
	out := map[addr.Node]bool{}
	for _, a := range list {
		found := false
		for _, n := range w.pipeline.Nodes {
			if n.Addr == a || !a.Key.Set && n.Addr.Block() == a {
				out[n.Addr], found = true, true
			}
		}
		if !found {
			return nil, fmt.Errorf("no node %s in the pipeline%s", a, didYouMean(a.String(), nodeNames(w.pipeline)))
		}
	}
	return out, nil
}

func nodeNames(p *config.Pipeline) []string {
	var names []string
	for _, n := range p.Nodes {
		names = append(names, n.Addr.String())
	}
	return names
}

// LockOptions tune kiln lock.
type LockOptions struct {
	Update    []addr.Node // drop and re-resolve the pins of these nodes
	UpdateAll bool        // drop and re-resolve every pin
	Command   string      // the command line, recorded as the lock holder
}

// LockPins resolves the pipeline's pins without building (see
// lockfile.Resolve) and writes kiln.lock.hcl, under the apply lock.
func (w *Workspace) LockPins(ctx context.Context, o LockOptions) ([]lockfile.Resolution, error) {
	update, err := w.matchNodes(o.Update)
	if err != nil {
		return nil, err
	}
	release, err := w.hold(o.Command)
	if err != nil {
		return nil, err
	}
	defer release()
	lf := w.lock.Clone()
	res := lockfile.Resolve(ctx, w.pipeline, lf, func(a addr.Node) bool { return o.UpdateAll || update[a] }, os.Environ())
	if err := lf.Write(w.lockPath()); err != nil {
		return res, fmt.Errorf("writing %s: %w", lockfile.FileName, err)
	}
	memo.Remove(w.pipeline.StateDir) // the pins changed under it
	w.lock = lf
	return res, nil
}

// Check rebuilds the named nodes (default: every built node) into scratch
// folders under .kiln/check and compares their digests with the lock's, or
// the state's (see run.Applier.Check). It holds the apply lock and writes
// nothing to the store, the state or the lock.
func (w *Workspace) Check(ctx context.Context, nodes []addr.Node, command string) ([]run.CheckResult, error) {
	named, err := w.matchNodes(nodes)
	if err != nil {
		return nil, err
	}
	release, err := w.hold(command)
	if err != nil {
		return nil, err
	}
	defer release()
	pl, diags := w.decider.Make(ctx, w.dag, w.scope)
	if diags.HasErrors() {
		return nil, diags
	}
	locked := map[string]run.Checked{}
	for a, n := range w.lock.Nodes {
		locked[a] = run.Checked{Key: n.Key, Digest: n.Digest}
	}
	host, _ := os.Hostname()
	a := &run.Applier{Decider: w.decider, DAG: w.dag, Options: run.Options{Host: host, Version: Version}}
	res := a.Check(ctx, pl, run.CheckOptions{Named: named, Locked: locked, Dir: filepath.Join(w.pipeline.StateDir, "check")})
	scratch := w.checkInScratch(ctx, pl, named)
	for i, r := range res {
		if s, ok := scratch[r.Addr]; ok {
			res[i] = s
		}
	}
	return res, nil
}

// lockedBuilds are the node entries of a lock, for the decider.
func lockedBuilds(lf *lockfile.File) map[string]plan.LockedBuild {
	out := make(map[string]plan.LockedBuild, len(lf.Nodes))
	for a, n := range lf.Nodes {
		if n.Digest == "" {
			continue // its result varies: nothing to compare a build with
		}
		out[a] = plan.LockedBuild{Key: n.Key, Digest: n.Digest}
	}
	return out
}

// StrictLock reports whether a result that does not reproduce the lock's
// digest under the same key is an error: -strict, or the pipeline's
// kiln { strict_lock = true }.
func (w *Workspace) StrictLock() bool { return w.opts.StrictLock || w.pipeline.StrictLock }

func hasMismatch(pl *plan.Plan) bool {
	for _, d := range pl.Changes {
		if d.LockMismatch != nil {
			return true
		}
	}
	return false
}
