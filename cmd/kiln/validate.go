package main

import (
	"flag"
	"fmt"

	"github.com/kilnbuild/kiln/engine/human"
)

func init() {
	flagSets["validate"] = func() *flag.FlagSet { fs, _ := validateFlags(); return fs }
	register(&command{name: "validate", summary: "check a pipeline without running anything", usage: "kiln validate [flags] [PATH]", run: runValidate})
}

func validateFlags() (*flag.FlagSet, *pipelineArgs) {
	a := &pipelineArgs{}
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	a.register(fs)
	return fs, a
}

func runValidate(c *cli, args []string) int {
	fs, a := validateFlags()
	path, ok := c.pathArg(fs, args)
	if !ok {
		return 1
	}
	w, ok := c.open(a, path, decision{})
	if !ok {
		return 1
	}
	diags := w.Validate()
	c.diags(w, diags, a.noColor)
	if diags.HasErrors() {
		return 1
	}
	fmt.Fprintf(c.stdout, "The pipeline is valid: %s, %s.\n", human.Count(w.NodeCount(), "node"), human.Count(w.EdgeCount(), "edge"))
	return 0
}
