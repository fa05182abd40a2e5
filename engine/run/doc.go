// Package run applies a pipeline: it walks the DAG with the scheduler in
// engine/run/sched, decides each node again the moment its dependencies
// finish (so an upstream result that came out byte-identical stops the
// rebuild there), and builds, restores or skips it.
//
// A node's run happens in a fresh store folder named by its key. Only when
// the kind's Build succeeded and the result is hashed does the engine mark
// the entry complete, point the stable path .kiln/out/TYPE.NAME at it and
// commit the record to the state journal. A failed or interrupted run never
// replaces a good result; a resumable node keeps its folder for the next try.
//
// The engine never prints. It reports through Hooks, which views render.
// Hooks are called from many goroutines; implementations synchronise.
package run
