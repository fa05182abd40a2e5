package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/kilnbuild/kiln/engine/render"
)

type graphArgs struct {
	pipelineArgs
	format      string
	changedOnly bool
}

func graphFlags() (*flag.FlagSet, *graphArgs) {
	a := &graphArgs{}
	fs := flag.NewFlagSet("graph", flag.ContinueOnError)
	a.pipelineArgs.register(fs)
	fs.StringVar(&a.format, "format", "dot", "dot or mermaid")
	fs.BoolVar(&a.changedOnly, "changed-only", false, "only the nodes the plan would change, with what they depend on")
	return fs, a
}

func init() {
	flagSets["graph"] = func() *flag.FlagSet { fs, _ := graphFlags(); return fs }
	register(&command{name: "graph", summary: "draw the pipeline's DAG, coloured by the plan", usage: "kiln graph [-format dot|mermaid] [-changed-only] [PATH]", run: runGraph})
}

func runGraph(c *cli, args []string) int {
	fs, a := graphFlags()
	path, ok := c.pathArg(fs, args)
	if !ok {
		return 1
	}
	w, ok := c.open(&a.pipelineArgs, path, decision{})
	if !ok {
		return 1
	}
	pl, diags := w.Plan(context.Background())
	c.diags(w, diags, a.noColor)
	if diags.HasErrors() {
		return 1
	}
	g, action := w.PlanGraph(pl, a.changedOnly)
	cannotRun := map[string]bool{}
	for _, d := range pl.Changes {
		if d.Blocked != "" {
			cannotRun[d.Node.Addr.String()] = true
		}
	}
	blocked := func(v int) bool { return cannotRun[g.Name(v)] }
	switch a.format {
	case "dot":
		fmt.Fprint(c.stdout, render.GraphDOT(g, action, blocked))
	case "mermaid":
		fmt.Fprint(c.stdout, render.GraphMermaid(g, action, blocked))
	default:
		fmt.Fprintf(c.stderr, "kiln graph: unknown -format %q (dot or mermaid)\n", a.format)
		return 1
	}
	return 0
}
