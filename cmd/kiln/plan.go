package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"

	"github.com/kilnbuild/kiln/engine"
	"github.com/kilnbuild/kiln/engine/render"
)

type planArgs struct {
	decideArgs
	json         bool
	format       string
	out          string
	detailedExit bool
}

func planFlags() (*flag.FlagSet, *planArgs) {
	a := &planArgs{}
	fs := flag.NewFlagSet("plan", flag.ContinueOnError)
	a.decideArgs.register(fs)
	fs.BoolVar(&a.json, "json", false, "print the plan as JSON (schema: docs/plan-json.md)")
	fs.StringVar(&a.format, "format", "text", "output format: text, json or markdown")
	fs.StringVar(&a.out, "out", "", "save the plan to FILE for kiln apply FILE")
	fs.BoolVar(&a.detailedExit, "detailed-exitcode", false, "exit 0 when nothing changes, 2 when something would, 1 on error")
	return fs, a
}

func init() {
	flagSets["plan"] = func() *flag.FlagSet { fs, _ := planFlags(); return fs }
	register(&command{name: "plan", summary: "show what is stale and why", usage: "kiln plan [flags] [PATH]", run: runPlan})
}

func runPlan(c *cli, args []string) int {
	fs, a := planFlags()
	path, ok := c.pathArg(fs, args)
	if !ok {
		return 1
	}
	c.sayStateLink(path)
	if a.json {
		a.format = "json"
	}
	defer limitHeap(c.getenv, planHeap)() // heap.go
	d, err := a.decideArgs.parse()
	if err != nil {
		fmt.Fprintln(c.stderr, "kiln plan:", err)
		return 1
	}
	var m *render.PlanJSON
	var w *engine.Workspace
	var decided *engine.Plan
	if a.out == "" && !d.narrowed() && !d.strict {
		n, upToDate, q := c.quickPlan(&a.pipelineArgs, path, a.format == "text")
		if upToDate {
			if c.verifying() && !c.verifyNoChanges(&a.pipelineArgs, path, n) {
				return 1
			}
			render.NoChanges(c.stdout, n)
			return 0
		}
		if q != nil {
			decided = q.Plan
			m = render.ModelPlan(q.Plan, q.Root, render.StateJSON{Lineage: q.Stamp.Lineage, Serial: q.Stamp.Serial}, engine.Version)
			if c.verifying() && !c.verifyPlan(&a.pipelineArgs, path, m) {
				return 1
			}
		}
	}
	if m == nil {
		var ok bool
		if w, ok = c.open(&a.pipelineArgs, path, d); !ok {
			return 1
		}
		pl, diags := w.PlanOnce(context.Background())
		c.diags(w, diags, a.noColor)
		if diags.HasErrors() {
			return 1
		}
		decided = pl
		lineage, serial := w.StateVersion()
		m = render.ModelPlan(pl, w.Root(), render.StateJSON{Lineage: lineage, Serial: serial}, engine.Version)
		if c.verifying() && settledAny(pl) && !c.verifyPlan(&a.pipelineArgs, path, m) {
			return 1
		}
	}
	switch a.format {
	case "json":
		enc := json.NewEncoder(c.stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(m)
	case "markdown", "md":
		render.PlanMarkdown(c.stdout, m)
	case "text":
		render.PlanText(c.stdout, m, c.colours(a.noColor))
		c.warnStoreSpace(decided, path)
	default:
		fmt.Fprintf(c.stderr, "kiln plan: unknown -format %q (text, json or markdown)\n", a.format)
		return 1
	}
	if a.out != "" {
		if err := w.SavePlan(a.out, engine.PlanFlags{Targets: a.targets, Replace: a.replace, Resources: a.resources}, decided, m); err != nil {
			c.fail(err)
			return 1
		}
		if a.format == "text" {
			fmt.Fprintf(c.stdout, "\nSaved the plan to %s. Apply exactly this plan with: kiln apply %s\n", a.out, a.out)
		}
	}
	if a.detailedExit && m.HasChanges() {
		return 2
	}
	return 0
}

// settledAny reports whether the memo vouched for a node of pl, which the
// full plan did not evaluate.
func settledAny(pl *engine.Plan) bool {
	for _, d := range pl.Changes {
		if d.Settled {
			return true
		}
	}
	return false
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// warnStoreSpace prints engine.StoreSpaceWarning for the pipeline at path,
// if any.
func (c *cli) warnStoreSpace(pl *engine.Plan, path string) {
	dir, err := c.stateDirOf(path)
	if err != nil {
		return
	}
	if w := engine.StoreSpaceWarning(pl, dir); w != "" {
		fmt.Fprintf(c.stdout, "\n%s\n", w)
	}
}
