// Package engine ties kiln's parts together for the commands: it loads a
// pipeline, builds its graph, opens its state, store and caches, and offers
// plan and apply over them. The CLI parses flags, calls a Workspace and hands
// the result to a view; it never reaches into the parts itself.
package engine
