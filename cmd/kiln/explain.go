package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/kilnbuild/kiln/engine/render"
)

func explainFlags() (*flag.FlagSet, *pipelineArgs) {
	a := &pipelineArgs{}
	fs := flag.NewFlagSet("explain", flag.ContinueOnError)
	a.register(fs)
	return fs, a
}

func init() {
	flagSets["explain"] = func() *flag.FlagSet { fs, _ := explainFlags(); return fs }
	register(&command{name: "explain", summary: "show why a node would (not) run: its key lines beside the recorded ones", usage: "kiln explain [flags] ADDR [PATH]", run: runExplain})
}

func runExplain(c *cli, args []string) int {
	fs, a := explainFlags()
	pos, err := parse(fs, args)
	if err != nil {
		fmt.Fprintf(c.stderr, "kiln %s: %v\n", fs.Name(), err)
		return 1
	}
	if len(pos) == 0 || len(pos) > 2 {
		fmt.Fprintln(c.stderr, "kiln explain: give a node address, e.g. kiln explain exec.train")
		return 1
	}
	path := "."
	if len(pos) == 2 {
		path = pos[1]
	}
	w, ok := c.open(a, path, decision{})
	if !ok {
		return 1
	}
	n, err := w.NodeByAddr(pos[0])
	if err != nil {
		c.fail(err)
		return 1
	}
	pl, diags := w.Plan(context.Background())
	c.diags(w, diags, a.noColor)
	if diags.HasErrors() {
		return 1
	}
	render.Explain(c.stdout, pl.Of(n.Addr), c.colours(a.noColor))
	return 0
}
