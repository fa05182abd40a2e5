package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/kilnbuild/kiln/engine"
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
	pos, err := parse(fs, args)
	if err != nil {
		fmt.Fprintln(c.stderr, "kiln gc:", err)
		return 1
	}
	path, err := onePath(pos, "gc")
	if err != nil {
		fmt.Fprintln(c.stderr, err)
		return 1
	}
	dir, err := stateDirOf(path)
	if err != nil {
		c.fail(err)
		return 1
	}
	rep, err := engine.GC(dir, engine.GCOptions{DryRun: a.dryRun, OlderThan: a.olderThan})
	if err != nil {
		c.fail(err)
		return 1
	}
	verb := "Removed"
	if a.dryRun {
		verb = "Would remove"
	}
	for _, e := range rep.Removed {
		fmt.Fprintf(c.stdout, "%s %s (%s, %s)\n", map[bool]string{true: "would remove", false: "removed"}[a.dryRun], e.Key[:12], e.Addr, humanBytes(e.Size))
	}
	fmt.Fprintf(c.stdout, "%s %d entr%s, %s; kept %d in use.\n", verb, len(rep.Removed), map[bool]string{true: "y", false: "ies"}[len(rep.Removed) == 1], humanBytes(rep.Freed), rep.Kept)
	return 0
}

func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
