// Package exec is the exec node kind: it runs a command.
//
// command is a string run by /bin/sh -c, or a list run directly (the first
// element looked up on the node's PATH). The command runs in dir (default: the
// pipeline folder) with the engine's minimal environment plus env, and its own
// output folder in $KILN_OUT. It runs in its own process group: when the
// apply is interrupted or the node times out, the group gets SIGTERM and,
// after Grace, SIGKILL, so no grandchild outlives the node.
//
// outputs names files or folders the command writes in place instead of in
// $KILN_OUT; the engine hashes them into the node's digest and guards them
// against drift.
package exec
