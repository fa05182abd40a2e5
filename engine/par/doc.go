// Package par runs the iterations of a loop on a few goroutines, each
// taking the next iteration in turn, for the engine's passes over every
// node or block (loading, deciding a wave, validating, the memo).
// How many goroutines a pass is worth is the caller's to say.
package par
