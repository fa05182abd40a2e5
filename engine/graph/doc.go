// Package graph holds kiln's dependency graph: vertices, edges, cycle
// detection, a deterministic topological order, reachability, and the DOT
// and Mermaid drawing that kiln graph and kiln diff use (the colours are the
// caller's: engine/render/palette).
//
// Vertices are the dense ints 0..N-1; the caller keeps the table from its
// typed addresses to vertices and gives each vertex a display name, used in
// messages and to break every tie. An edge from -> to means "from depends on
// to". Invariants: no duplicate edges; every result that lists vertices
// (Deps, Dependents, Order, Cycles, DOT, Mermaid) is ordered by names alone,
// never by insertion order or map iteration, so the same pipeline always
// gives the same order, the same cycle message and the same picture.
//
// Names are the pipeline's (a for_each key holds anything), and a Mermaid
// drawing goes into pull requests that GitHub and GitLab render: every
// label is one quoted string in which each character that could be markup
// (HTML, a Markdown string, a directive, an entity code, the quote) is
// written as Mermaid's entity code, so it shows as the text. DOT labels are
// quoted and escaped the same way for Graphviz.
//
// Cycles uses kiln's own iterative Tarjan algorithm rather than
// dominikbraun/graph's StronglyConnectedComponents: on 10,000 vertices and
// 30,000 random edges the library takes about 16 times as long for the
// components alone as kiln takes with the reported cycle paths
// (bench/peers BenchmarkCycles). For the same reason storage is plain
// adjacency slices, and DOT is written directly: the library's DOT output
// follows map order (bench/peers TestLibraryDOTFollowsMapOrder).
//
// Locking: a Graph is built by one goroutine (New, AddEdge); once built, all
// other methods only read it and may be called from many goroutines at once.
package graph
