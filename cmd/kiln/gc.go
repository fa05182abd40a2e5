package main

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"time"

	"github.com/kilnbuild/kiln/engine"
	"github.com/kilnbuild/kiln/engine/render"
)

type gcArgs struct {
	dryRun      bool
	olderThan   time.Duration
	keepCommits int
	keepRefs    refsFlag
	budget      sizeFlag
}

func gcFlags() (*flag.FlagSet, *gcArgs) {
	a := &gcArgs{}
	fs := flag.NewFlagSet("gc", flag.ContinueOnError)
	fs.BoolVar(&a.dryRun, "dry-run", false, "list what would be removed, remove nothing")
	fs.DurationVar(&a.olderThan, "older-than", 0, "only remove entries created more than this long ago, e.g. 168h")
	fs.IntVar(&a.keepCommits, "keep-commits", 0, "keep the results kiln.lock.hcl names at the last N commits of HEAD (read with git)")
	fs.Var(&a.keepRefs, "keep-ref", "keep the results kiln.lock.hcl names at this branch, tag or commit (repeatable)")
	fs.Var(&a.budget, "budget", "keep the store within this size, e.g. 50GiB: earlier results newest first, those the commits name before others; results in use always stay")
	return fs, a
}

func init() {
	flagSets["gc"] = func() *flag.FlagSet { fs, _ := gcFlags(); return fs }
	register(&command{name: "gc", summary: "remove store entries no node uses", usage: "kiln gc [-dry-run] [-older-than DURATION] [-keep-commits N] [-keep-ref REF]... [-budget SIZE] [PATH]", run: runGC})
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
	o := engine.GCOptions{DryRun: a.dryRun, OlderThan: a.olderThan, Budget: int64(a.budget), Kinds: kinds()}
	if a.keepCommits < 0 {
		fmt.Fprintf(c.stderr, "kiln gc: -keep-commits %d: give a number of commits, 1 or more\n", a.keepCommits)
		return 1
	}
	if a.keepCommits > 0 || len(a.keepRefs) > 0 {
		var skipped []string
		if o.Keep, skipped, err = engine.CommitKeys(context.Background(), filepath.Dir(dir), a.keepCommits, a.keepRefs); err != nil {
			c.fail(err)
			return 1
		}
		for _, s := range skipped {
			fmt.Fprintf(c.stderr, "kiln gc: warning: %s; nothing kept for it\n", s)
		}
	}
	rep, err := engine.GC(dir, o)
	if err != nil {
		c.fail(err)
		return 1
	}
	render.GC(c.stdout, rep, a.dryRun)
	return 0
}
