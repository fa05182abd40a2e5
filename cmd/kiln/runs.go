package main

import (
	"encoding/json"
	"flag"
	"fmt"

	"github.com/kilnbuild/kiln/engine/history"
	"github.com/kilnbuild/kiln/engine/render"
)

type runsArgs struct {
	format string
	last   int
}

func runsFlags() (*flag.FlagSet, *runsArgs) {
	a := &runsArgs{}
	fs := flag.NewFlagSet("runs", flag.ContinueOnError)
	fs.StringVar(&a.format, "format", "text", "text, json, or markdown (one table, for a pull request)")
	fs.IntVar(&a.last, "last", 0, "list only the last N runs (default: every recorded run)")
	return fs, a
}

func init() {
	flagSets["runs"] = func() *flag.FlagSet { fs, _ := runsFlags(); return fs }
	register(&command{name: "runs", summary: "list the recorded runs: variables, what changed, outcomes, final and best metrics",
		usage: "kiln runs [-last N] [-format text|json|markdown] [PATH]", run: runRuns})
}

func runRuns(c *cli, args []string) int {
	fs, a := runsFlags()
	path, ok := c.pathArg(fs, args)
	if !ok {
		return 1
	}
	if a.format != "text" && a.format != "json" && a.format != "markdown" {
		fmt.Fprintf(c.stderr, "kiln runs: unknown -format %q (text, json or markdown)\n", a.format)
		return 1
	}
	if a.last < 0 {
		fmt.Fprintf(c.stderr, "kiln runs: -last %d: give a number of runs, 1 or more\n", a.last)
		return 1
	}
	dir, err := c.stateDirOf(path)
	if err != nil {
		c.fail(err)
		return 1
	}
	ids, err := history.List(dir)
	if err != nil {
		c.fail(err)
		return 1
	}
	if a.last > 0 && len(ids) > a.last {
		ids = ids[len(ids)-a.last:]
	}
	runs, err := history.Summarise(dir, ids)
	if err != nil {
		c.fail(err)
		return 1
	}
	switch a.format {
	case "json":
		if runs == nil {
			runs = []history.Summary{}
		}
		b, _ := json.MarshalIndent(map[string]any{"runs": runs}, "", "  ")
		fmt.Fprintln(c.stdout, string(b))
	case "markdown":
		render.RunsMarkdown(c.stdout, runs)
	default:
		render.Runs(c.stdout, runs)
	}
	return 0
}
