package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/kilnbuild/kiln/engine"
	"github.com/kilnbuild/kiln/engine/render"
	"github.com/kilnbuild/kiln/engine/state"
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
	if a.json {
		a.format = "json"
	}
	d, err := a.decideArgs.parse()
	if err != nil {
		fmt.Fprintln(c.stderr, "kiln plan:", err)
		return 1
	}
	if a.format == "text" && a.out == "" && !d.narrowed() {
		if n, ok := c.quickCheck(&a.pipelineArgs, path); ok {
			render.NoChanges(c.stdout, n)
			return 0
		}
	}
	w, ok := c.open(&a.pipelineArgs, path, d)
	if !ok {
		return 1
	}
	pl, diags := w.Plan(context.Background())
	c.diags(w, diags, a.noColor)
	if diags.HasErrors() {
		return 1
	}
	m := render.ModelPlan(pl, w.Pipeline.Root, render.StateJSON{Lineage: w.State.Lineage, Serial: w.State.Serial}, engine.Version)
	switch a.format {
	case "json":
		enc := json.NewEncoder(c.stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(m)
	case "markdown", "md":
		render.PlanMarkdown(c.stdout, m)
	case "text":
		render.PlanText(c.stdout, m, c.colours(a.noColor))
	default:
		fmt.Fprintf(c.stderr, "kiln plan: unknown -format %q (text, json or markdown)\n", a.format)
		return 1
	}
	if a.out != "" {
		if err := savePlan(a.out, w, &a.decideArgs, m); err != nil {
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

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// savedPlan is the file plan -out writes and apply FILE reads.
type savedPlan struct {
	Format   string            `json:"format"`
	Path     string            `json:"pipeline"`
	Config   string            `json:"config_digest"`
	Stamp    engine.StateStamp `json:"state"`
	Vars     []string          `json:"vars,omitempty"`
	VarFiles []string          `json:"var_files,omitempty"`
	Targets  []string          `json:"targets,omitempty"`
	Replace  []string          `json:"replace,omitempty"`
	// Resources are the -resource flags, so apply decides with the pools
	// the plan was made against.
	Resources []string         `json:"resources,omitempty"`
	Plan      *render.PlanJSON `json:"plan"`
}

const savedPlanFormat = "kiln-plan-1"

func savePlan(file string, w *engine.Workspace, d *decideArgs, m *render.PlanJSON) error {
	sp := savedPlan{
		Format: savedPlanFormat, Path: w.Pipeline.Root, Config: w.ConfigDigest(), Stamp: w.Stamp(),
		Vars: w.VarFlags(), VarFiles: w.VarFiles(), Targets: d.targets, Replace: d.replace, Resources: d.resources, Plan: m,
	}
	b, err := json.MarshalIndent(sp, "", "  ")
	if err != nil {
		return err
	}
	return state.WriteFileAtomic(file, append(b, '\n'), 0o644)
}

func loadPlan(file string) (*savedPlan, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var sp savedPlan
	if err := json.Unmarshal(b, &sp); err != nil || sp.Format != savedPlanFormat {
		return nil, fmt.Errorf("%s is not a kiln plan file (make one with kiln plan -out %s)", file, file)
	}
	return &sp, nil
}

// isPlanFile reports whether path is a file written by kiln plan -out.
func isPlanFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var head struct {
		Format string `json:"format"`
	}
	return json.NewDecoder(f).Decode(&head) == nil && head.Format == savedPlanFormat
}
