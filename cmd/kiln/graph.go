package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/kilnbuild/kiln/engine/plan"
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
	actions := map[int]plan.Action{}
	for _, d := range pl.Changes {
		v, _ := w.DAG.Vertex(d.Node.Addr)
		actions[v] = d.Action
	}
	g := w.DAG.Graph
	if a.changedOnly {
		var roots []int
		for v, act := range actions {
			if act != plan.NoOp {
				roots = append(roots, v)
			}
		}
		keep := g.Closure(roots)
		g = g.Subgraph(keep)
	}
	class := func(name string) (plan.Action, string) {
		n, _ := w.NodeByAddr(name)
		v, _ := w.DAG.Vertex(n.Addr)
		act := actions[v]
		if act == plan.NoOp {
			return act, "noop"
		}
		return act, act.Word()
	}
	switch a.format {
	case "dot":
		fmt.Fprint(c.stdout, g.DOT(func(v int) (string, map[string]string) {
			act, _ := class(g.Name(v))
			attrs := map[string]string{"shape": "box"}
			if col := dotColour(act); col != "" {
				attrs["color"], attrs["fontcolor"] = col, col
			}
			return fmt.Sprintf("%s %s", string(act), g.Name(v)), attrs
		}))
	case "mermaid":
		fmt.Fprint(c.stdout, g.Mermaid(func(v int) (string, string) {
			act, cls := class(g.Name(v))
			return fmt.Sprintf("%s %s", string(act), g.Name(v)), cls
		}))
	default:
		fmt.Fprintf(c.stderr, "kiln graph: unknown -format %q (dot or mermaid)\n", a.format)
		return 1
	}
	return 0
}

func dotColour(a plan.Action) string {
	switch a {
	case plan.Create:
		return "darkgreen"
	case plan.Rebuild:
		return "darkorange"
	case plan.Maybe:
		return "cadetblue"
	case plan.Restore:
		return "blue"
	case plan.Repair, plan.Forget:
		return "red"
	case plan.Start:
		return "purple"
	}
	return ""
}
