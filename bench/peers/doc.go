// Package peers measures kiln's own code against the libraries it chose not
// to use, so that README's Dependencies section says why with numbers and
// failing behaviour rather than opinion. It is a module of its own: the
// libraries it compares against never enter kiln's go.mod, and go test ./...
// at the repository root does not build it. Run it from this folder:
//
//	go test -bench . -count 5 -run 'GoGetter|Library' .
//
// graph_test.go compares engine/graph's cycle detection with
// dominikbraun/graph's StronglyConnectedComponents on 10,000 vertices and
// 30,000 random edges, and shows that the library's DOT output changes from
// one call to the next. getter_test.go shows the go-getter behaviours that
// providers/fetch is written to avoid; each test passes while go-getter
// behaves so, and fails once it no longer does.
package peers
