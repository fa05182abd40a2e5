package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/kilnbuild/kiln/engine"
	"github.com/kilnbuild/kiln/engine/history"
	"github.com/kilnbuild/kiln/engine/render/report"
)

type reportArgs struct {
	run     string
	compare string
	out     string
	format  string
	list    bool
	runs    int
	smooth  float64
}

func reportFlags() (*flag.FlagSet, *reportArgs) {
	a := &reportArgs{}
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.StringVar(&a.run, "run", "", "the run to report, by ID (default: the latest; kiln report -list shows them)")
	fs.StringVar(&a.compare, "compare", "", "overlay another run's curves and durations: an ID, or prev for the run before")
	fs.StringVar(&a.out, "o", "", "write to this file (default: report.html for html, standard output for markdown; - for standard output)")
	fs.StringVar(&a.format, "format", "html", "html (one self-contained page) or markdown (for a pull request)")
	fs.BoolVar(&a.list, "list", false, "list the recorded runs")
	fs.IntVar(&a.runs, "runs", 0, "add a runs table and compare the last N runs up to this one on charts labelled by what differs (learning_rate=0.002)")
	fs.Float64Var(&a.smooth, "smooth", 0, "with -runs, draw the compared curves as an exponential moving average of this weight, 0 to 0.99")
	return fs, a
}

func init() {
	flagSets["report"] = func() *flag.FlagSet { fs, _ := reportFlags(); return fs }
	register(&command{name: "report", summary: "show what a run did: timeline, nodes, graph, metric curves",
		usage: "kiln report [-run ID] [-compare RUN] [-runs N [-smooth W]] [-o report.html] [-format markdown] [PATH]\nkiln report -list [PATH]", run: runReport})
}

func runReport(c *cli, args []string) int {
	fs, a := reportFlags()
	path, ok := c.pathArg(fs, args)
	if !ok {
		return 1
	}
	if a.format != "html" && a.format != "markdown" {
		fmt.Fprintf(c.stderr, "kiln report: unknown -format %q (html or markdown)\n", a.format)
		return 1
	}
	dir, err := c.stateDirOf(path)
	if err != nil {
		c.fail(err)
		return 1
	}
	if a.list {
		return c.listRuns(dir)
	}
	id, err := runID("run", a.run)
	if err != nil {
		fmt.Fprintln(c.stderr, "kiln report:", err)
		return 1
	}
	r, err := history.Load(dir, id)
	if err != nil {
		fmt.Fprintln(c.stderr, "kiln report:", err)
		return 1
	}
	o := report.Options{Run: r, Now: time.Now(), Smooth: a.smooth}
	if a.runs < 0 || a.smooth < 0 || a.smooth >= 1 {
		fmt.Fprintln(c.stderr, "kiln report: -runs takes a number of runs, 1 or more, and -smooth a weight from 0 to 0.99")
		return 1
	}
	if a.runs > 0 {
		if o.Runs, err = sweepRuns(dir, r.ID, a.runs); err != nil {
			fmt.Fprintln(c.stderr, "kiln report:", err)
			return 1
		}
	}
	if a.compare != "" {
		cid := 0
		if a.compare == "prev" {
			if cid, err = history.Previous(dir, r.ID); err == nil && cid == 0 {
				err = fmt.Errorf("-compare prev: run %d is the oldest recorded run", r.ID)
			}
		} else {
			cid, err = runID("compare", a.compare)
			if err == nil && cid == 0 {
				err = fmt.Errorf("-compare: give a run ID or prev")
			}
		}
		if err == nil {
			o.Compare, err = history.Load(dir, cid)
		}
		if err != nil {
			fmt.Fprintln(c.stderr, "kiln report:", err)
			return 1
		}
	}
	out := a.out
	if out == "" && a.format == "html" {
		out = "report.html"
	}
	if out != "" && out != "-" {
		abs, err := filepath.Abs(out)
		if err != nil {
			c.fail(err)
			return 1
		}
		o.LogDir = filepath.Dir(abs)
	} else if a.format == "markdown" {
		o.LogDir = r.Root // for a pull request: paths in the repository
	} else if cwd, err := os.Getwd(); err == nil {
		o.LogDir = cwd
	}
	var buf bytes.Buffer
	if a.format == "markdown" {
		err = report.Markdown(&buf, o)
	} else {
		err = report.HTML(&buf, o)
	}
	if err != nil {
		c.fail(err)
		return 1
	}
	if out == "" || out == "-" {
		_, _ = c.stdout.Write(buf.Bytes())
		return 0
	}
	if err := engine.WriteFileAtomic(out, buf.Bytes(), 0o644); err != nil {
		c.fail(err)
		return 1
	}
	fmt.Fprintf(c.stdout, "Wrote %s: run %d (%s, %d nodes).\n", out, r.ID, r.Label(), len(r.Nodes))
	return 0
}

// runID parses a run ID flag; empty is 0, the latest.
func runID(name, s string) (int, error) {
	if s == "" {
		return 0, nil
	}
	id, err := strconv.Atoi(s)
	if err != nil || id <= 0 {
		return 0, fmt.Errorf("-%s %q: give a run's ID, a whole number (kiln report -list shows them)", name, s)
	}
	return id, nil
}

// listRuns prints one line per recorded run.
func (c *cli) listRuns(dir string) int {
	ids, err := history.List(dir)
	if err != nil {
		c.fail(err)
		return 1
	}
	if len(ids) == 0 {
		fmt.Fprintln(c.stdout, "No recorded runs: kiln apply records one.")
		return 0
	}
	for _, id := range ids {
		r, err := history.Load(dir, id)
		if err != nil {
			fmt.Fprintf(c.stdout, "%4d  unreadable: %v\n", id, err)
			continue
		}
		ran := 0
		for _, n := range r.Nodes {
			if !n.Began.IsZero() {
				ran++
			}
		}
		fmt.Fprintf(c.stdout, "%4d  %s  %-11s  %3d nodes, %d ran  %s\n", r.ID, r.Started.Local().Format("2006-01-02 15:04:05"), r.Label(), len(r.Nodes), ran, r.End().Sub(r.Started).Round(time.Second))
	}
	return 0
}
