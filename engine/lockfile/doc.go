// Package lockfile reads and writes kiln.lock.hcl, the file beside a
// pipeline that is meant for git: the pins resolved for its nodes (the
// commit a git ref named, the checksum a download first had) and, per node,
// the key and digest of its last successful build with the kiln version that
// made it. A node whose result varies by nature (deterministic = false) is
// locked without a digest, and its dependents, whose keys hold that digest,
// not at all: the lock changes with the pipeline, not with every training
// run, so a git revert of a hyper-parameter merges.
//
// Invariants. Bytes renders a File in one canonical form — a header comment,
// version, pin blocks, then node blocks, each sorted by address, attributes
// sorted by name and aligned — so a lock kiln wrote loads and writes back
// byte for byte, and a change to the pipeline is a small, reviewable diff.
// Parse is strict: an unknown block or attribute, a value that is not a
// quoted string, malformed hex, a duplicate address or a missing attribute
// is a diagnostic with file and line, and a lock whose version is newer than
// Version is refused before anything else is read. A lock that does not
// parse is never rewritten: callers stop at its diagnostics. A lock in the
// canonical form whose values need no escape is read line by line
// (canonical.go) and accepted only when it renders back to the same bytes;
// anything else goes through the HCL parser, which reports the problems.
//
// Pins are name/value pairs: only the well-known names commit, revision and
// checksum have their format checked here. Resolve (kiln lock) asks the kinds
// that implement kind.PinResolver for pins without building; Record takes
// the pins a build resolved from its state record (kiln.pin.* attributes).
//
// Locking: a File is a plain value, not safe for concurrent mutation. Write
// replaces the file atomically (state.WriteFileAtomic); callers that write it
// hold the apply lock, so two kiln processes never write it at once.
package lockfile
