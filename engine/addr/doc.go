// Package addr names the nodes of a pipeline.
//
// A node's address is TYPE.NAME, with an instance key when the block uses
// for_each (exec.train["lr-3"]) or count (exec.shard[2]). Addresses are typed
// values compared with ==; String gives the form users type, FileName a form
// safe to use as one path element under .kiln/ (the stable link out/NAME,
// the logs folder logs/NAME): an address too long for a file name is
// shortened to a prefix and a hash of the whole, so any for_each key works.
package addr
