package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/kilnbuild/kiln/engine"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/render"
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
	failed := render.Resolutions(c.stdout, c.stderr, res)
	if err != nil {
		c.fail(err)
		return 1
	}
	fmt.Fprintf(c.stdout, "Wrote %s.\n", engine.LockFileName)
	if failed {
		return 1
	}
	return 0
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
	render.Check(c.stdout, res)
	for _, r := range res {
		if r.Status == engine.Mismatch || r.Status == engine.CheckFailed {
			return 1
		}
	}
	return 0
}
