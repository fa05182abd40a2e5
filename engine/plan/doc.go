// Package plan decides what each node needs: nothing, a create, a rebuild,
// a restore from the store, a repair of drifted outputs, a (re)start of a
// service, or — when an upstream node will run first — a maybe, settled
// during apply once the upstream digest is known.
//
// The plan is pure data (Plan, Change, Reason); reasons exist only to explain
// to the user. The same Decide function serves plan and apply: at plan time
// upstream digests of nodes that will run are unknown, during apply every
// upstream digest is known, so apply simply decides again, node by node, as
// Go's build does when it computes an action ID after the dependencies ran.
//
// Keys are written as labelled lines in keyLines, the single place where
// anything that influences a node's result must be reported.
package plan
