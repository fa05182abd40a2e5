package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/run"
)

func init() {
	flagSets["logs"] = func() *flag.FlagSet { fs, _ := logsFlags(); return fs }
	register(&command{name: "logs", summary: "print a node's latest log", usage: "kiln logs [-previous] ADDR [PATH]", run: runLogs})
}

func logsFlags() (*flag.FlagSet, *bool) {
	fs := flag.NewFlagSet("logs", flag.ContinueOnError)
	prev := fs.Bool("previous", false, "print the log of the run before the latest")
	return fs, prev
}

func runLogs(c *cli, args []string) int {
	fs, prev := logsFlags()
	pos, err := parse(fs, args)
	if err != nil {
		fmt.Fprintf(c.stderr, "kiln %s: %v\n", fs.Name(), err)
		return 1
	}
	if len(pos) == 0 || len(pos) > 2 {
		fmt.Fprintln(c.stderr, "kiln logs: give a node address, e.g. kiln logs exec.train")
		return 1
	}
	a, err := addr.Parse(pos[0])
	if err != nil {
		c.fail(err)
		return 1
	}
	path := "."
	if len(pos) == 2 {
		path = pos[1]
	}
	dir, err := c.stateDirOf(path)
	if err != nil {
		c.fail(err)
		return 1
	}
	file := run.LogPath(dir, a)
	if *prev {
		file += ".1"
	}
	f, err := os.Open(file)
	if err != nil {
		if _, prevErr := os.Stat(file + ".1"); prevErr == nil && !*prev {
			fmt.Fprintf(c.stdout, "The latest run of %s printed nothing; kiln logs -previous %s shows the run before.\n", a, a)
			return 0
		}
		fmt.Fprintf(c.stderr, "kiln logs: no log for %s (%s): it has not run, or printed nothing\n", a, file)
		return 1
	}
	defer f.Close()
	_, _ = io.Copy(c.stdout, f)
	return 0
}
