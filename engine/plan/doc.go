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
// anything that influences a node's result must be reported. An upstream
// enters a key by its digest (upstream.go): its stable path is written
// ${upstream:N} and its digest goes on a dep line whose address is only a
// note, so renaming a node changes no downstream key.
//
// A node whose upstream runs first is decided with the lines computable
// now, each waiting upstream assumed to keep the digest the node was last
// built with: lines that differ even so are the node's own change (a
// rebuild, with "and upstream X will run"); otherwise it is a maybe. The
// lines that wait are marked (Decision.Waiting) for explain.
//
// Make decides the nodes in waves: a wave holds the nodes whose upstream
// nodes are all in earlier waves, and its nodes are decided in parallel,
// each seeing the values of its upstream nodes as when the nodes are
// decided one by one (as they are while KILN_DEBUG_KEY prints keys). A
// Decider with a Memo (engine/memo) takes from it the decisions of the
// nodes it vouches for, up to date as recorded, instead of evaluating
// them; every other node is decided by Decide. DecideRecorded and Unchanged
// (recorded.go) are the same decisions made from a node's recorded key
// lines, restamped for new digests (Restamp), for the memo's plan that
// loads no pipeline.
//
// A plan that is shown and not applied (Decider.LetGo, kiln plan) lets go
// of each block's syntax tree once its last node is decided, and of each
// decision's evaluated configuration and key lines once Decided has them:
// a node is evaluated only at its own decision, so nothing reads either
// again (explain and apply make plans of their own), and at 100,000 nodes
// they are a third of the plan's heap.
//
// Key lines are typed (hash.Line: label, subject, value, note) from the
// moment keyLines writes them to the state file and back: DiffKeyLines,
// OwnChanges, Restamp and explain compare and rewrite fields, and text is
// only rendered, for hashing and for people.
//
// StaticLines, for kiln diff, add what a key holds through the
// configuration: the lock's pins and the files expressions read.
//
// Inputs (inputs.go, inputlinks.go) are hashed with their symlinks
// followed — an input that is a link, a link inside an input folder, one a
// glob matches: the input line holds each link's text and the digest of
// what it leads to (InputDigest), so editing a data set linked into the
// pipeline folder, or pointing the link elsewhere, changes the key. Key
// files, instance files and results are hashed as they are (DigestPath,
// DirDigest): their digests are those of earlier versions. A link that
// dangles is a missing input (MissingInputError: the node cannot run, the
// rest of the pipeline plans); a symlink loop, a device, a FIFO or a socket
// is a BadInputError, a diagnostic at the node's inputs attribute. A glob
// matches a link to a folder as one input, hashed as that folder, and does
// not walk into it.
package plan
