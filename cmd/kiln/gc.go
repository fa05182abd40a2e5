package main

import (
	"flag"
	"time"

	"github.com/kilnbuild/kiln/engine"
	"github.com/kilnbuild/kiln/engine/render"
)

type gcArgs struct {
	dryRun    bool
	olderThan time.Duration
}

func gcFlags() (*flag.FlagSet, *gcArgs) {
	a := &gcArgs{}
	fs := flag.NewFlagSet("gc", flag.ContinueOnError)
	fs.BoolVar(&a.dryRun, "dry-run", false, "list what would be removed, remove nothing")
	fs.DurationVar(&a.olderThan, "older-than", 0, "only remove entries created more than this long ago, e.g. 168h")
	return fs, a
}

func init() {
	flagSets["gc"] = func() *flag.FlagSet { fs, _ := gcFlags(); return fs }
	register(&command{name: "gc", summary: "remove store entries no node uses", usage: "kiln gc [-dry-run] [-older-than DURATION] [PATH]", run: runGC})
}

func runGC(c *cli, args []string) int {
	fs, a := gcFlags()
	path, ok := c.pathArg(fs, args)
	if !ok {
		return 1
	}
	dir, err := c.stateDirOf(path)
	if err != nil {
		c.fail(err)
		return 1
	}
	rep, err := engine.GC(dir, engine.GCOptions{DryRun: a.dryRun, OlderThan: a.olderThan, Kinds: kinds()})
	if err != nil {
		c.fail(err)
		return 1
	}
	render.GC(c.stdout, rep, a.dryRun)
	return 0
}
