// Package engine ties kiln's parts together for the commands: it loads a
// pipeline, builds its graph, opens its state, store and caches, and offers
// plan and apply over them. The CLI parses flags, calls a Workspace and hands
// the result to a view; it never reaches into the parts itself.
//
// Every command that takes the apply lock to change things (apply, destroy,
// gc) first settles what an apply that died left (recover.go): the runs its
// journal names as unended have their leftover processes stopped — before
// anything new starts — and their folders removed, or kept and recorded for a
// resumable node to resume in.
//
// moved blocks are made in memory by Open (a plan sees the records at their
// new addresses) and for real by Apply, through the state writer, under the
// apply lock (moved.go). Check compares with kiln.lock.hcl: built nodes are
// rebuilt into scratch folders; never-built ones are applied in a scratch
// state folder that is removed afterwards (check_scratch.go).
package engine
