package main

import (
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/kilnbuild/kiln/engine"
	"github.com/kilnbuild/kiln/engine/human"
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
	rep, err := engine.GC(dir, engine.GCOptions{DryRun: a.dryRun, OlderThan: a.olderThan})
	if err != nil {
		c.fail(err)
		return 1
	}
	verb := "removed"
	if a.dryRun {
		verb = "would remove"
	}
	for _, e := range rep.Removed {
		fmt.Fprintf(c.stdout, "%s %s (%s, %s)\n", verb, shortHex(e.Key), e.Addr, human.Bytes(e.Size))
	}
	for _, l := range rep.Links {
		fmt.Fprintf(c.stdout, "%s link %s (its entry is gone)\n", verb, l)
	}
	for _, e := range rep.KeptEntries {
		fmt.Fprintf(c.stdout, "kept %s (%s): %s\n", shortHex(e.Key), e.Addr, e.Why)
	}
	entries := "entries"
	if len(rep.Removed) == 1 {
		entries = "entry"
	}
	fmt.Fprintf(c.stdout, "%s %d %s, %s; kept %d in use.\n", strings.ToUpper(verb[:1])+verb[1:], len(rep.Removed), entries, human.Bytes(rep.Freed), rep.Kept)
	return 0
}
