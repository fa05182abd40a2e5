// Package run applies a pipeline: it walks the DAG with the scheduler in
// engine/run/sched, decides each node again the moment its dependencies
// finish (so an upstream result that came out byte-identical stops the
// rebuild there), and builds, restores or skips it.
//
// A node's run happens in a fresh run folder of its own under its key in the
// store (state.Store.NewRun), beside any good result of the same key. Only
// when the kind's Build succeeded and the result is hashed does the engine
// point the stable path .kiln/out/TYPE.NAME at it and commit the record to
// the state journal; a result the node had under the same key (a repair,
// -replace, always_run) is removed after that, unless another node uses it.
// A failed or interrupted run never replaces or touches a good result; its
// folder is removed, except that a resumable node keeps it (named in the
// record's failure) and the next run with the same key resumes in it.
//
// Around a run: the run and every process group it starts are journaled
// (state.RunLog, through proc.WithTracker) before they can do anything, so
// that a later apply can stop what a dead one left; the node's inputs are
// fingerprinted by stat before the run and checked after it (inputWatch,
// through their symlinks to what they lead to, as their keys are),
// so a result is never recorded under the key of content the run may not
// have read; and the node's output is read to its end even when its log
// file cannot be written (nodeLog), the failure reported in
// NodeResult.LogErr rather than ending the node.
//
// A sealed run (seal.go) writes only its own result and reads, of the
// results of its upstream closure, those its node depends on, those its
// configuration names, and transitively what those name: publish reads a
// new result for the marks of its upstreams' results (package refs) and
// records their keys (state.Record.Refs), as Nix records a store path's
// references. A deep layered pipeline would otherwise allow thousands of
// results per run, each a Landlock rule, a view link and a stat, and its
// full build would grow with the square of its depth. A record that was
// not scanned names its whole closure.
//
// A build whose key is the one kiln.lock.hcl records but whose digest is not
// is a lock mismatch (checkLock, before the result is published): kept in
// the node's result for the views to warn of, or, with Options.StrictLock,
// the build's failure. Check rebuilds built nodes into scratch folders;
// engine's apply -check builds the never-built ones in a scratch state.
//
// A node that asks for a device pool (resources = { npu = 4 }) runs on the
// ids the scheduler hands it: the pool's variable (ASCEND_RT_VISIBLE_DEVICES)
// carries them to its processes, its log starts with them, and its record
// and NodeResult keep them. They never enter the key.
//
// An apply after which the pipeline is not evaluated again (Options.LetGo,
// kiln apply) lets go of each block's syntax tree once its last instance
// has had its turn (letGo.go), so the trees shrink as the records the
// apply writes grow.
//
// The engine never prints. It reports through Hooks, which views render.
// Hooks are called from many goroutines; implementations synchronise.
package run
