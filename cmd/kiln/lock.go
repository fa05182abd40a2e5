package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/kilnbuild/kiln/engine"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/lockfile"
	"github.com/kilnbuild/kiln/engine/run"
)

type lockArgs struct {
	pipelineArgs
	update bool
}

func lockFlags() (*flag.FlagSet, *lockArgs) {
	a := &lockArgs{}
	fs := flag.NewFlagSet("lock", flag.ContinueOnError)
	a.pipelineArgs.register(fs)
	fs.BoolVar(&a.update, "update", false, "drop and resolve again the pins of the named nodes (all pins when none is named)")
	return fs, a
}

func init() {
	flagSets["lock"] = func() *flag.FlagSet { fs, _ := lockFlags(); return fs }
	register(&command{name: "lock", summary: "resolve pins into kiln.lock.hcl without building",
		usage: "kiln lock [flags] [PATH]\nkiln lock -update [PATH] [ADDR...]", run: runLock})
}

func runLock(c *cli, args []string) int {
	fs, a := lockFlags()
	pos, err := parse(fs, args)
	if err != nil {
		fmt.Fprintln(c.stderr, "kiln lock:", err)
		return 1
	}
	addrs, rest := splitAddrs(pos)
	path, err := onePath(rest, "lock")
	if err != nil {
		fmt.Fprintln(c.stderr, err)
		return 1
	}
	if len(addrs) > 0 && !a.update {
		fmt.Fprintf(c.stderr, "kiln lock: node addresses (%s) select pins to update: add -update\n", addrs[0])
		return 1
	}
	w, ok := c.open(&a.pipelineArgs, path, decision{})
	if !ok {
		return 1
	}
	ctx, stop := c.interruptible()
	defer stop()
	res, err := w.LockPins(ctx, engine.LockOptions{Update: addrs, UpdateAll: a.update && len(addrs) == 0, Command: commandLine(fs, pos)})
	failed := printResolutions(c, res)
	if err != nil {
		c.fail(err)
		return 1
	}
	fmt.Fprintf(c.stdout, "Wrote %s.\n", lockfile.FileName)
	if failed {
		return 1
	}
	return 0
}

// printResolutions shows what kiln lock did per node; it reports whether a
// pin could not be resolved.
func printResolutions(c *cli, res []lockfile.Resolution) bool {
	failed := false
	for _, r := range res {
		switch r.Status {
		case lockfile.Pinned, lockfile.Kept:
			line := fmt.Sprintf("%s: %s %s", r.Addr, r.Status, pinText(r.Pins))
			if r.Old != nil {
				line += " (was " + pinText(r.Old) + ")"
			}
			fmt.Fprintln(c.stdout, line)
		case lockfile.NeedsBuild:
			msg := strings.TrimPrefix(r.Err.Error(), kind.ErrPinNeedsBuild.Error()+": ")
			if r.Old != nil {
				fmt.Fprintf(c.stdout, "%s: dropped %s: %s\n", r.Addr, pinText(r.Old), msg)
				continue
			}
			fmt.Fprintf(c.stdout, "%s: not pinned: %s\n", r.Addr, msg)
		default:
			failed = true
			fmt.Fprintf(c.stderr, "kiln lock: %s: %v\n", r.Addr, r.Err)
		}
	}
	return failed
}

// pinText writes pins as name=value pairs, the resolved value first.
func pinText(pins map[string]string) string {
	if len(pins) == 0 {
		return "nothing (the configuration pins it itself)"
	}
	names := make([]string, 0, len(pins))
	for n := range pins {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		wi, wj := pinWeight(names[i]), pinWeight(names[j])
		return wi < wj || wi == wj && names[i] < names[j]
	})
	var parts []string
	for _, n := range names {
		parts = append(parts, n+"="+pins[n])
	}
	return strings.Join(parts, " ")
}

func pinWeight(name string) int {
	switch name {
	case "commit", "checksum", "revision":
		return 0
	}
	return 1
}

// splitAddrs separates node addresses (TYPE.NAME of a known kind, not an
// existing file) from the pipeline path among positional arguments.
func splitAddrs(pos []string) (addrs []addr.Node, rest []string) {
	known := map[string]bool{}
	for _, k := range kinds() {
		known[k.Name()] = true
	}
	for _, p := range pos {
		a, err := addr.Parse(p)
		if _, statErr := os.Stat(p); err == nil && known[a.Kind] && errors.Is(statErr, os.ErrNotExist) {
			addrs = append(addrs, a)
			continue
		}
		rest = append(rest, p)
	}
	return addrs, rest
}

// runCheck is kiln apply -check: it rebuilds nodes into a scratch folder and
// compares their digests with the lock. Exit status: 0 when every checked
// deterministic node reproduced, 1 otherwise (a mismatch, a failed rebuild,
// or an error).
func runCheck(c *cli, a *applyArgs, path string, addrs []addr.Node, command string) int {
	w, ok := c.open(&a.pipelineArgs, path, decision{})
	if !ok {
		return 1
	}
	ctx, stop := c.interruptible()
	defer stop()
	res, err := w.Check(ctx, addrs, command)
	if err != nil {
		c.fail(err)
		return 1
	}
	if ctx.Err() != nil {
		fmt.Fprintf(c.stderr, "kiln apply -check: %v\n", context.Cause(ctx))
		return interruptExit(ctx)
	}
	counts := map[run.CheckStatus]int{}
	for _, r := range res {
		counts[r.Status]++
		printCheck(c, r)
	}
	var parts []string
	for _, s := range []run.CheckStatus{run.Reproduced, run.Mismatch, run.NotDeterministic, run.CheckFailed, run.CheckSkipped} {
		if counts[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[s], strings.ToLower(string(s))))
		}
	}
	if len(parts) == 0 {
		parts = []string{"no nodes"}
	}
	fmt.Fprintf(c.stdout, "Check: %s.\n", strings.Join(parts, ", "))
	if counts[run.Mismatch] > 0 || counts[run.CheckFailed] > 0 {
		return 1
	}
	return 0
}

func printCheck(c *cli, r run.CheckResult) {
	short := func(s string) string {
		if len(s) > 12 {
			return s[:12]
		}
		return s
	}
	switch r.Status {
	case run.Reproduced:
		where := ""
		if r.InScratch {
			where = "; built in scratch"
		}
		fmt.Fprintf(c.stdout, "%s: reproduced (digest %s, as in %s%s)\n", r.Addr, short(r.Got), r.Against, where)
	case run.Mismatch, run.NotDeterministic:
		note := ""
		if r.Status == run.NotDeterministic {
			note = " (deterministic = false: reported, not failed)"
		}
		fmt.Fprintf(c.stdout, "%s: %s: digest %s in %s, rebuilt %s%s\n", r.Addr, r.Status, short(r.Want), r.Against, short(r.Got), note)
		for _, f := range r.Files {
			fmt.Fprintf(c.stdout, "    differs: %s\n", f)
		}
		if len(r.Files) == 0 && r.InScratch {
			fmt.Fprintf(c.stdout, "    (built in scratch; the locked result is not in this machine's store, so the files that differ cannot be named)\n")
		}
	case run.CheckFailed:
		fmt.Fprintf(c.stdout, "%s: rebuild failed: %v\n", r.Addr, r.Err)
		for _, l := range r.LogTail {
			fmt.Fprintf(c.stdout, "    | %s\n", l)
		}
	default:
		fmt.Fprintf(c.stdout, "%s: skipped: %s\n", r.Addr, r.Reason)
	}
}
