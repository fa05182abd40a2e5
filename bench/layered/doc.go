// Package layered generates the benchmark pipeline: a layered DAG of exec
// nodes in which every node checksums its inputs into one small file, and
// writes the same DAG three ways — a kiln pipeline.hcl, a Makefile and a
// build.ninja — so the three tools run exactly the same commands.
//
// Invariants: the DAG depends only on its Params (N, Layers, Seed); nodes of
// layer 0 read a source file, every other node reads 1 to 3 distinct nodes of
// the layer before it, listed in ascending order. Every tool's command for a
// node is the same shell text apart from where files live, so its output
// file holds the same bytes in all three trees.
//
// Locking: a DAG is immutable once New returns it and may be read from many
// goroutines.
package layered
