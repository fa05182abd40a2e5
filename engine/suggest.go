package engine

import (
	"fmt"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/human"
)

// withSuggestion adds to err, which says that one of named (-target or
// -replace addresses) names no node, the declared address closest to the
// first of them that is not one (human.Closest), as references and flags
// have; or where the pipeline's nodes are listed when none is close.
func (w *Workspace) withSuggestion(err error, named []addr.Node) error {
	declared := map[string]bool{}
	var options []string
	add := func(s string) {
		if !declared[s] {
			declared[s] = true
			options = append(options, s)
		}
	}
	for _, n := range w.pipeline.Nodes {
		add(n.Addr.Block().String())
		if n.Addr.Key.Set && !n.Placeholder() {
			add(n.Addr.String())
		}
	}
	for _, a := range named {
		if declared[a.String()] {
			continue
		}
		if best := human.Closest(a.String(), options); best != "" {
			return fmt.Errorf("%w; did you mean %s?", err, best)
		}
		break
	}
	return fmt.Errorf("%w (kiln graph lists the nodes)", err)
}
