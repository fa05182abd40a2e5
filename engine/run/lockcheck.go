package run

import (
	"fmt"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/human"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/state"
)

// LockMismatchError fails a build under -strict whose key is the one
// kiln.lock.hcl records but whose digest is not.
type LockMismatchError struct {
	Addr addr.Node
	plan.LockMismatch
}

func (e *LockMismatchError) Error() string {
	msg := fmt.Sprintf("%s: its digest differs from kiln.lock.hcl under the same key (%s locked, %s built)", e.Addr, human.Short(e.Locked), human.Short(e.Built))
	if len(e.Files) > 0 {
		msg += fmt.Sprintf("; files that differ: %v", e.Files)
	}
	return msg + "; the build does not reproduce the lock (find what it reads that its key does not hold, mark it deterministic = false, or apply without -strict to accept the new result)"
}

// checkLock compares a finished build (key, digest, its folder dir) with
// kiln.lock.hcl: a mismatch fails under StrictLock and is kept for the
// node's result otherwise.
func (a *Applier) checkLock(n *config.Node, key, digest, dir string) error {
	m := a.Decider.Mismatch(n, key, digest)
	if m == nil {
		return nil
	}
	m.Files = lockedFilesDiffering(a.Decider.State, a.Decider.Store, m.Locked, dir)
	if a.Options.StrictLock {
		return &LockMismatchError{Addr: n.Addr, LockMismatch: *m}
	}
	a.mismatches.Store(n.Addr, m)
	return nil
}

// lockedFilesDiffering names the files that differ between the result
// with digest want, when the store still holds a run folder of it (a
// node's record or an earlier result in the state's history), and the
// folder dir; nil when none does.
func lockedFilesDiffering(st *state.State, store *state.Store, want, dir string) []string {
	if st == nil {
		return nil
	}
	for _, recs := range []map[string]*state.Record{st.Records, st.History} {
		for _, r := range recs {
			if r.Good() && r.Digest == want && store.Exists(r.Entry) {
				return diffFiles(store.RunPath(r.Entry), dir)
			}
		}
	}
	return nil
}
