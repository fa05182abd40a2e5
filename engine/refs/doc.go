// Package refs finds what in a result might name another result, the way
// Nix finds a store path's references: by reading the result's bytes for
// the marks a path into a result carries. A result kiln built lies in a run
// folder named KEY-RUN under the store, a relocated run sees it at
// /kiln/out/KEY, and its stable link is STATE/out/NAME; so a file, a
// symbolic link's text or a string that leads into a result holds either
// its key (64 lowercase hex digits) or "out/" and its node's file name.
//
// Scan reads a result (a run folder and its in-place outputs) and returns
// every such mark it holds, as candidates: every run of 64 hex digits and
// every name after "out/". The engine keeps those that are the keys and
// names of the node's upstreams. A candidate that names nothing costs a
// map lookup; a mark cut short by the end of a read is a candidate too, so
// the scan errs towards naming more, never less. A result too large to read
// again within Limit, or holding more than MaxCandidates marks, is Unknown:
// it is taken to name all of its upstreams.
//
// The package has no state.
package refs
