package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"slices"

	"github.com/kilnbuild/kiln/engine"
	"github.com/kilnbuild/kiln/engine/render"
	"github.com/kilnbuild/kiln/engine/review"
)

type diffArgs struct {
	pipelineArgs
	json         bool
	format       string
	stateDir     string
	detailedExit bool
	old, new     string
}

func diffFlags() (*flag.FlagSet, *diffArgs) {
	a := &diffArgs{}
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	a.pipelineArgs.register(fs)
	fs.BoolVar(&a.json, "json", false, "print the report as JSON (schema: docs/review.md)")
	fs.StringVar(&a.format, "format", "text", "output format: text, json or markdown")
	fs.StringVar(&a.stateDir, "state", "", "state folder whose recorded durations give the cost estimate (default: the pipeline's .kiln)")
	fs.BoolVar(&a.detailedExit, "detailed-exitcode", false, "exit 0 when nothing changes, 2 when something does, 1 on error")
	return fs, a
}

func init() {
	flagSets["diff"] = func() *flag.FlagSet { fs, _ := diffFlags(); return fs }
	register(&command{name: "diff", summary: "show what a change between git revisions reruns, and its cost",
		usage: "kiln diff [flags] REV [REV2] [-- PATH]\n\nCompares the pipeline at git revision REV with REV2 (default: the working tree)\nwithout running anything. PATH is the pipeline file or folder (default: .).",
		run:   runDiff})
}

// parseDiffArgs splits REV [REV2] from the pipeline path after "--".
func parseDiffArgs(args []string) (*diffArgs, error) {
	fs, a := diffFlags()
	path := "."
	if i := slices.Index(args, "--"); i >= 0 {
		rest := args[i+1:]
		if len(rest) != 1 {
			return nil, fmt.Errorf("name one pipeline path after --, got %d", len(rest))
		}
		path, args = rest[0], args[:i]
	}
	pos, err := parse(fs, args)
	if err != nil {
		return nil, err
	}
	switch len(pos) {
	case 1:
		a.old = pos[0]
	case 2:
		a.old, a.new = pos[0], pos[1]
	default:
		return nil, fmt.Errorf("name one or two git revisions (kiln diff REV [REV2] [-- PATH]), got %d", len(pos))
	}
	if a.json {
		a.format = "json"
	}
	switch a.format {
	case "text", "json", "markdown", "md":
	default:
		return nil, fmt.Errorf("unknown -format %q (text, json or markdown)", a.format)
	}
	a.path = path
	return a, nil
}

func runDiff(c *cli, args []string) int {
	a, err := parseDiffArgs(args)
	if err != nil {
		fmt.Fprintln(c.stderr, "kiln diff:", err)
		return 1
	}
	vars, err := a.varMap()
	if err != nil {
		fmt.Fprintln(c.stderr, "kiln diff:", err)
		return 1
	}
	r, err := review.Compare(context.Background(), review.Options{
		Path: a.path, Old: a.old, New: a.new, Kinds: kinds(), Vars: vars, VarFiles: a.varFiles,
		StateDir: a.stateDir, KilnVersion: engine.Version,
	})
	var load *review.LoadError
	switch {
	case errors.As(err, &load):
		fmt.Fprintf(c.stderr, "kiln diff: the pipeline does not load at %s; fix it there, or compare other revisions:\n", load.Revision.Label())
		render.Diagnostics(c.stderr, load.Files, load.Diags, 100, c.colours(a.noColor).On)
		return 1
	case err != nil:
		fmt.Fprintln(c.stderr, "kiln diff:", err)
		return 1
	}
	switch a.format {
	case "json":
		enc := json.NewEncoder(c.stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		_ = enc.Encode(r)
	case "markdown", "md":
		render.ReviewMarkdown(c.stdout, r)
	default:
		render.ReviewText(c.stdout, r, c.colours(a.noColor))
	}
	if a.detailedExit && r.HasChanges() {
		return 2
	}
	return 0
}
