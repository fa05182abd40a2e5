package main

import (
	"fmt"

	"github.com/kilnbuild/kiln/engine"
)

// printOutputs prints the pipeline's outputs after a successful apply.
// printOutputs prints the pipeline's outputs; false when one cannot be
// evaluated, which the command reports as a failure.
func (c *cli) printOutputs(w *engine.Workspace) bool {
	outs, diags := w.Outputs()
	if diags.HasErrors() {
		c.diags(w, diags, true)
		return false
	}
	if len(outs) == 0 {
		return true
	}
	fmt.Fprintln(c.stdout, "\nOutputs:")
	for _, o := range outs {
		fmt.Fprintf(c.stdout, "  %s = %s\n", o.Name, o.Value)
	}
	return true
}
