package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/kilnbuild/kiln/engine"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/history"
	"github.com/kilnbuild/kiln/engine/render"
)

type applyArgs struct {
	decideArgs
	parallelism int
	jobs        int
	failFast    bool
	quiet       bool
	check       bool
	keepRuns    int
	trace       listFlag
}

func applyFlags() (*flag.FlagSet, *applyArgs) {
	a := &applyArgs{}
	fs := flag.NewFlagSet("apply", flag.ContinueOnError)
	a.decideArgs.register(fs)
	fs.IntVar(&a.parallelism, "parallelism", runtime.NumCPU(), fmt.Sprintf("run at most N nodes at once on this machine (1 to %d)", maxParallelism))
	fs.IntVar(&a.jobs, "jobs", 0, fmt.Sprintf("have at most N Slurm jobs submitted and unfinished at once (up to %d; default: each executor's max_jobs only)", maxJobs))
	fs.BoolVar(&a.failFast, "fail-fast", false, "start nothing new after the first failure (default: keep going with independent nodes)")
	fs.BoolVar(&a.quiet, "quiet", false, "do not stream the nodes' output (it stays in kiln logs ADDR)")
	fs.IntVar(&a.keepRuns, "keep-runs", history.DefaultKeep, "keep the records of this many runs for kiln report, this one included (0: record none)")
	fs.Var(&a.trace, "trace", "run this node (as -replace) with reads of the whole pipeline folder allowed, under strace, and list every file it read and program it ran, with the inputs line to add (repeatable)")
	fs.BoolVar(&a.check, "check", false, "rebuild built nodes (or the ADDRs given) into a scratch folder and compare digests with kiln.lock.hcl; changes nothing (exit 1 on a mismatch)")
	return fs, a
}

// The bounds of -parallelism and -jobs: far above what one machine runs
// or one cluster queues, and low enough that the scheduler's tables for
// them stay small.
const (
	maxParallelism = 4096
	maxJobs        = 100000
)

// checkCounts refuses a -parallelism or -jobs outside its bounds.
func (a *applyArgs) checkCounts() error {
	if a.parallelism < 1 || a.parallelism > maxParallelism {
		return fmt.Errorf("-parallelism %d: run from 1 to %d nodes at once (the default is this machine's %d CPUs)", a.parallelism, maxParallelism, runtime.NumCPU())
	}
	if a.jobs < 0 || a.jobs > maxJobs {
		return fmt.Errorf("-jobs %d: have from 1 to %d Slurm jobs at once, or leave -jobs out for each executor's max_jobs", a.jobs, maxJobs)
	}
	return nil
}

func init() {
	flagSets["apply"] = func() *flag.FlagSet { fs, _ := applyFlags(); return fs }
	register(&command{name: "apply", summary: "rebuild what is stale, in parallel", usage: "kiln apply [flags] [PATH | PLANFILE]\nkiln apply -check [flags] [PATH] [ADDR...]", run: runApply})
}

func runApply(c *cli, args []string) int {
	fs, a := applyFlags()
	pos, err := parse(fs, args)
	if err == nil {
		err = a.checkCounts()
	}
	if err != nil {
		fmt.Fprintln(c.stderr, "kiln apply:", err)
		return 1
	}
	var checkAddrs []addr.Node
	if a.check {
		checkAddrs, pos = splitAddrs(pos)
	}
	path, err := onePath(pos, "apply")
	if err != nil {
		fmt.Fprintln(c.stderr, err)
		return 1
	}
	defer limitHeap(c.getenv, applyHeap)() // heap.go
	if a.check {
		return runCheck(c, a, path, checkAddrs, commandLine(fs, pos))
	}
	var saved *engine.SavedPlan
	if engine.IsPlanFile(path) {
		if saved, err = engine.LoadPlan(path); err != nil {
			c.fail(err)
			return 1
		}
		path = saved.Path
		a.vars, a.varFiles, a.targets, a.replace, a.resources = saved.Vars, saved.VarFiles, saved.Targets, saved.Replace, saved.Resources
	}
	d, err := a.decideArgs.parse()
	var traced []addr.Node
	if err == nil {
		traced, err = parseAddrs("trace", a.trace)
		d.replace = append(d.replace, traced...)
	}
	if err != nil {
		fmt.Fprintln(c.stderr, "kiln apply:", err)
		return 1
	}
	if saved == nil && !d.narrowed() {
		if n, ok := c.quickCheck(&a.pipelineArgs, path); ok {
			if c.verifying() && !c.verifyNoChanges(&a.pipelineArgs, path, n) {
				return 1
			}
			render.NothingToApply(c.stdout, n)
			return 0
		}
	}
	w, ok := c.open(&a.pipelineArgs, path, d)
	if !ok {
		if saved == nil && strings.HasSuffix(path, ".json") {
			fmt.Fprintf(c.stderr, "kiln apply: %s is not a kiln plan file (make one with kiln plan -out %s) and does not load as a pipeline either (above)\n", path, path)
		}
		return 1
	}
	opts := engine.ApplyOptions{Parallelism: a.parallelism, Jobs: a.jobs, FailFast: a.failFast, Command: commandLine(fs, pos), KeepRuns: a.keepRuns, OnRecover: func(rs []engine.Recovered) { render.Recovered(c.stderr, rs) }, Trace: traced, Final: true}
	if a.keepRuns <= 0 {
		opts.KeepRuns = -1
	}
	if saved != nil {
		if err := w.CheckSavedPlan(context.Background(), saved); err != nil {
			fmt.Fprintln(c.stderr, "kiln apply:", err)
			return 1
		}
		opts.Expect = &saved.Stamp
	}
	return c.applyWith(w, a, opts)
}

// applyWith runs the apply of w with its live progress, and reports what
// it did: the summary, traces, lock mismatches, failures and outputs.
func (c *cli) applyWith(w *engine.Workspace, a *applyArgs, opts engine.ApplyOptions) int {
	progress := c.progress(w, a)
	opts.Hooks = progress
	if progress.TTY {
		ch, stopResizes := resizes()
		defer stopResizes()
		progress.Resized = ch
	}
	ctx, stop := c.interruptible()
	defer stop()
	start := time.Now()
	progress.Start()
	res, err := w.Apply(ctx, opts)
	progress.Stop()
	if err != nil {
		c.failIn(w, err, a.noColor)
		if res == nil {
			return 1
		}
	}
	fmt.Fprintln(c.stdout, render.ApplySummary(res, time.Since(start)))
	render.Traces(c.stdout, res, w.Root())
	render.LockMismatches(c.stderr, res)
	if err := w.RunRecordErr(); err != nil {
		fmt.Fprintf(c.stderr, "kiln apply: warning: %v; kiln report may show this run incompletely\n", err)
	}
	c.printFailures(w, res)
	if ctx.Err() != nil {
		fmt.Fprintf(c.stderr, "kiln apply: %v; the state is consistent: run kiln apply again to finish\n", context.Cause(ctx))
		return interruptExit(ctx)
	}
	if res.Failed() || err != nil {
		return 1
	}
	if !c.printOutputs(w) {
		return 1
	}
	return 0
}

// printFailures lists configuration errors found while applying.
func (c *cli) printFailures(w *engine.Workspace, res *engine.Result) {
	for _, n := range res.Nodes {
		var de *engine.DiagError
		if n.Outcome == engine.Failed && errors.As(n.Err, &de) {
			c.diags(w, de.Diags, true)
		}
	}
}

// progress is the apply's view: a live status on a terminal, plain lines
// with a heartbeat elsewhere (KILN_HEARTBEAT sets its interval, 30s by
// default).
func (c *cli) progress(w *engine.Workspace, a *applyArgs) *render.Progress {
	p := &render.Progress{W: c.stdout, TTY: c.liveStatus(), Colors: c.colours(a.noColor), Meters: meters(w), Quiet: a.quiet,
		Width: terminalWidth, Total: w.InScope(), Previous: w.LastDurations()}
	if d, err := time.ParseDuration(c.getenv("KILN_HEARTBEAT")); err == nil && d > 0 {
		p.Heartbeat = d
	}
	return p
}

// meters are the step counters nodes declare with progress and total.
func meters(w *engine.Workspace) map[addr.Node]render.Meter {
	m := map[addr.Node]render.Meter{}
	for a, s := range w.StepCounters() {
		m[a] = render.Meter{Pattern: s.Pattern, Total: s.Total}
	}
	return m
}
