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
package engine
