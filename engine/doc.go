// Package engine ties kiln's parts together for the commands: Open loads a
// pipeline, builds its graph and opens its state, store, lock file and
// caches into a Workspace, which offers plan, apply, destroy, check, lock,
// outputs and validate over them; QuickCheck and QuickPlan (memo.go)
// answer "is everything up to date?" and make the plan after an edit from
// the memo of engine/memo, without parsing the pipeline, and GC clears the
// store. A Workspace keeps its
// parts unexported: the CLI parses flags, calls a Workspace method and hands
// the result to a view in engine/render, and what a view reads of a
// workspace (its root, files, scope, last durations, the plan's graph) are
// the methods of view.go; the few other names of the engine's parts the
// commands use (the plan and apply result types, loading a state or a
// pipeline for its names, writing a file whole) are in facade.go, so the
// CLI reaches the engine through this package and engine/render alone.
// Every answer from the memo says why it was or was not given through
// Options.DebugPlan. The engine never prints: it returns data and
// reports progress through run.Hooks.
//
// A saved plan (kiln plan -out) is written and checked here (savedplan.go):
// its own data type, each node's action and key beside the plan -json view
// that kiln show prints; apply refuses one whose configuration, state,
// flags, keys or actions changed since. The
// remote cache and the Slurm executor join a plan and an apply in
// scaleout.go; each apply leaves a record for kiln report (record.go,
// engine/history), with the pipeline's variables and git commit
// (record_vars.go; RunAt finds a run by revision, runs_at.go).
//
// kiln.lock.hcl keeps what the pipeline decides (lock_varying.go): a
// deterministic = false node's key without its digest, nothing of the
// nodes below one. GC keeps earlier results that the locks of recent
// commits name (gc_commits.go, gc_below.go) and fits a size budget
// (gc_budget.go).
//
// Every command that takes the apply lock to change things (apply, destroy,
// gc) first settles what an apply that died left (recover.go): the runs its
// journal names as unended have their leftover processes stopped — before
// anything new starts — and their folders removed, or kept and recorded for a
// resumable node to resume in. kiln plan reads the same journal without the
// lock and without touching it (leftover.go), and shows what that apply will
// do: the folder a resumable node resumes in, the processes it stops first.
// A run that a dead apply cut short is a segment of the result it resumes
// into, read from its log (recover_segment.go).
//
// moved blocks are made in memory by Open (a plan sees the records at their
// new addresses) and for real by Apply, through the state writer, under the
// apply lock (moved.go). Check compares with kiln.lock.hcl: built nodes are
// rebuilt into scratch folders; never-built ones are applied in a scratch
// state folder that is removed afterwards (check_scratch.go).
package engine
