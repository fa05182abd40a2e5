package main

import (
	"fmt"

	"github.com/kilnbuild/kiln/engine"
)

// printOutputs prints the pipeline's outputs after a successful apply.
func (c *cli) printOutputs(w *engine.Workspace) {
	outs, diags := w.Outputs()
	if diags.HasErrors() {
		c.diags(w, diags, true)
		return
	}
	if len(outs) == 0 {
		return
	}
	fmt.Fprintln(c.stdout, "\nOutputs:")
	for _, o := range outs {
		fmt.Fprintf(c.stdout, "  %s = %s\n", o.Name, o.Value)
	}
}
