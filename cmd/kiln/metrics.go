package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"

	"github.com/kilnbuild/kiln/engine"
	"github.com/kilnbuild/kiln/engine/history"
	"github.com/kilnbuild/kiln/engine/render"
)

type diffRunsArgs struct {
	format string
	all    bool
}

func diffRunsFlags(name string) (*flag.FlagSet, *diffRunsArgs) {
	a := &diffRunsArgs{}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.StringVar(&a.format, "format", "text", "text, json, or markdown (for a pull request)")
	fs.BoolVar(&a.all, "all", false, "list every value, changed or not")
	return fs, a
}

func init() {
	flagSets["metrics"] = func() *flag.FlagSet { fs, _ := diffRunsFlags("metrics"); return fs }
	flagSets["params"] = func() *flag.FlagSet { fs, _ := diffRunsFlags("params"); return fs }
	register(&command{name: "metrics", summary: "compare the final metrics of two runs, as dvc metrics diff",
		usage: "kiln metrics diff [-all] [-format text|json|markdown] RUN|REV [RUN|REV] [PATH]", run: func(c *cli, args []string) int { return runDiffRuns(c, "metrics", args) }})
	register(&command{name: "params", summary: "compare the variables of two runs, as dvc params diff",
		usage: "kiln params diff [-all] [-format text|json|markdown] RUN|REV [RUN|REV] [PATH]", run: func(c *cli, args []string) int { return runDiffRuns(c, "params", args) }})
}

// runDiffRuns is kiln metrics diff and kiln params diff: RUN is a run's ID,
// prev (the run before the latest), latest, or a git revision (the newest
// run that began at it); the second defaults to the latest.
func runDiffRuns(c *cli, name string, args []string) int {
	if len(args) == 0 || args[0] != "diff" {
		fmt.Fprintf(c.stderr, "kiln %s: give diff and the runs to compare, e.g. kiln %s diff 3 5 (kiln runs lists them)\n", name, name)
		return 1
	}
	fs, a := diffRunsFlags(name)
	pos, err := parse(fs, args[1:])
	if err != nil {
		fmt.Fprintf(c.stderr, "kiln %s diff: %v\n", name, err)
		return 1
	}
	if a.format != "text" && a.format != "json" && a.format != "markdown" {
		fmt.Fprintf(c.stderr, "kiln %s diff: unknown -format %q (text, json or markdown)\n", name, a.format)
		return 1
	}
	// RUN [RUN] [PATH]: the last is a path when it names one and follows
	// a run.
	path := "."
	if n := len(pos); n >= 2 && n <= 3 && !isRunRef(pos[n-1]) && exists(pos[n-1]) {
		path, pos = pos[n-1], pos[:n-1]
	}
	refs := pos
	if len(refs) == 0 || len(refs) > 2 {
		fmt.Fprintf(c.stderr, "kiln %s diff: give one or two runs (an ID, prev, latest or a git revision the run began at) and at most one path, e.g. kiln %s diff 3 5\n", name, name)
		return 1
	}
	dir, err := c.stateDirOf(path)
	if err != nil {
		c.fail(err)
		return 1
	}
	if len(refs) == 1 {
		refs = append(refs, "latest")
	}
	ids, err := resolveRuns(dir, refs)
	if err != nil {
		fmt.Fprintf(c.stderr, "kiln %s diff: %v\n", name, err)
		return 1
	}
	sums, err := history.Summarise(dir, ids)
	if err != nil || len(sums) != 2 {
		fmt.Fprintf(c.stderr, "kiln %s diff: cannot read runs %d and %d: %v\n", name, ids[0], ids[1], err)
		return 1
	}
	d := history.Compare(sums[0], sums[1], a.all)
	switch {
	case a.format == "json" && name == "metrics":
		b, _ := json.MarshalIndent(map[string]any{"old": d.Old, "new": d.New, "metrics": d.Metrics}, "", "  ")
		fmt.Fprintln(c.stdout, string(b))
	case a.format == "json":
		b, _ := json.MarshalIndent(map[string]any{"old": d.Old, "new": d.New, "params": d.Params}, "", "  ")
		fmt.Fprintln(c.stdout, string(b))
	case a.format == "markdown":
		render.DiffMarkdown(c.stdout, d, name == "metrics", name == "params")
	case name == "metrics":
		render.MetricsDiff(c.stdout, d)
	default:
		render.ParamsDiff(c.stdout, d)
	}
	return 0
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func isRunRef(s string) bool {
	if s == "prev" || s == "latest" {
		return true
	}
	n, err := strconv.Atoi(s)
	return err == nil && n > 0
}

// resolveRuns turns run references into IDs of recorded runs.
func resolveRuns(dir string, refs []string) ([]int, error) {
	all, err := history.List(dir)
	if err != nil {
		return nil, err
	}
	if len(all) == 0 {
		return nil, history.ErrNoRuns
	}
	var out []int
	for _, r := range refs {
		switch r {
		case "latest":
			out = append(out, all[len(all)-1])
		case "prev":
			if len(all) < 2 {
				return nil, fmt.Errorf("prev: only one run is recorded")
			}
			out = append(out, all[len(all)-2])
		default:
			id, err := strconv.Atoi(r)
			if err != nil {
				// A git revision: the newest run that began at it.
				if id, err = engine.RunAt(context.Background(), dir, r); err != nil {
					return nil, err
				}
			} else if _, err := history.Load(dir, id); err != nil {
				return nil, err
			}
			out = append(out, id)
		}
	}
	return out, nil
}
