package engine

import (
	"context"
	"runtime"

	"github.com/kilnbuild/kiln/engine/memo"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/pool"
	"github.com/kilnbuild/kiln/engine/proc"
)

// The plan that loads no pipeline: engine/memo keeps what each node's
// decision rested on after a plan or an apply that found every node up to
// date, and answers the next plan from it when the pipeline's
// configuration is as it was.

// memoOptions are o as the memo takes them.
func memoOptions(o Options) memo.Options {
	m := memo.Options{Path: o.Path, Version: Version, Vars: o.Vars, VarFiles: o.VarFiles, Kinds: o.Kinds,
		Pools: pool.Resolve(machineSources(o.Resources)), Say: o.DebugPlan}
	if len(o.Targets) > 0 || len(o.Replace) > 0 {
		m.Full = "-target or -replace narrows the plan"
	}
	return m
}

// QuickCheck reports whether the pipeline at o.Path is certainly up to
// date, and how many nodes it has, from the memo (memo.Check); false means
// "run the full plan", never "out of date".
func QuickCheck(o Options) (nodes int, upToDate bool) {
	return memo.Check(memoOptions(o))
}

// QuickPlanResult is a plan made without loading the pipeline.
type QuickPlanResult struct {
	Plan  *plan.Plan
	Root  string // the pipeline's folder
	Stamp StateStamp
}

// QuickPlan makes the plan of the pipeline at o.Path from the memo when its
// configuration is as the memo recorded it (memo.Replan); false means
// "make the full plan". The plan is the one the full path would make.
func QuickPlan(ctx context.Context, o Options) (*QuickPlanResult, bool) {
	mo := memoOptions(o)
	if mo.Full == "" {
		mo.Full = noReplan(o)
	}
	r, ok := memo.Replan(ctx, mo)
	if !ok {
		return nil, false
	}
	return quickPlanResult(r), true
}

// QuickCheckThenPlan is QuickCheck and, where a node is not up to date,
// QuickPlan, from one read of the memo (memo.CheckThenReplan): what kiln
// plan asks first. q nil and upToDate false mean "make the full plan".
func QuickCheckThenPlan(ctx context.Context, o Options) (nodes int, upToDate bool, q *QuickPlanResult) {
	nodes, upToDate, r := memo.CheckThenReplan(ctx, memoOptions(o), noReplan(o))
	if r != nil {
		q = quickPlanResult(r)
	}
	return nodes, upToDate, q
}

// noReplan says why the plan after an edit may not come from the memo
// under o, or "".
func noReplan(o Options) string {
	if o.CacheURL != "" || o.StrictLock || o.DebugKey != nil {
		// A plan asks the cache about what would run; -strict-lock and
		// KILN_DEBUG_KEY say more than the plan.
		return "a remote cache, -strict-lock or KILN_DEBUG_KEY needs the full plan"
	}
	return ""
}

func quickPlanResult(r *memo.Result) *QuickPlanResult {
	return &QuickPlanResult{Plan: r.Plan, Root: r.Root, Stamp: StateStamp{Lineage: r.Lineage, Serial: r.Serial}}
}

// consultMemo is the memo for the full plan to consult (memo.Open): the
// nodes it vouches for are not evaluated. nil when there is none, when it
// does not hold, or when every node is to be decided (-target, -replace,
// KILN_DEBUG_KEY, KILN_NO_QUICK), and w.consulted is set to it.
func (w *Workspace) consultMemo() plan.Memo {
	w.consulted = nil
	o := memoOptions(w.opts)
	if o.Full != "" || w.opts.DebugKey != nil || w.opts.NoMemo {
		return nil
	}
	o.Stat = w.stat
	c, ok := memo.Open(o, w.pipeline)
	if !ok {
		return nil
	}
	w.consulted = c
	return c
}

// writeMemo records the memo after kiln found every node up to date, or
// removes a stale one when the pipeline does not qualify.
func (w *Workspace) writeMemo() {
	memo.Write(memo.From{Options: memoOptions(w.opts), Remote: w.opts.CacheURL != "", Pipeline: w.pipeline, DAG: w.dag,
		State: w.state, Store: w.store, Stat: w.stat, Decider: w.decider, Evals: &w.evals, Consulted: w.consulted})
}

// machineSources are what this machine offers every pipeline: its CPUs,
// its memory, and the -resource values given.
func machineSources(given map[string]pool.Given) pool.Sources {
	src := pool.Sources{Given: given, CPUs: runtime.NumCPU()}
	if mb, ok := proc.MemoryMB(); ok {
		src.MemMB = mb
	}
	return src
}
