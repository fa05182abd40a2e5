package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/kilnbuild/kiln/engine"
	"github.com/kilnbuild/kiln/engine/addr"
)

func init() {
	flagSets["logs"] = func() *flag.FlagSet { fs, _ := logsFlags(); return fs }
	register(&command{name: "logs", summary: "print the log of a node's current result, or of its failed run", usage: "kiln logs [-previous] ADDR [PATH]", run: runLogs})
}

// logsArgs are kiln logs' flags. It takes -var, -var-file and -no-color as
// every command that names a pipeline does, so one set of flags works for
// all of them; a log is found by address in the state, which no variable
// changes, so their values are checked and not used.
type logsArgs struct {
	pipelineArgs
	previous bool
}

func logsFlags() (*flag.FlagSet, *logsArgs) {
	a := &logsArgs{}
	fs := flag.NewFlagSet("logs", flag.ContinueOnError)
	a.pipelineArgs.register(fs)
	fs.BoolVar(&a.previous, "previous", false, "print the log of the newest other run (a failed run, or a build whose result is not linked now)")
	return fs, a
}

func runLogs(c *cli, args []string) int {
	fs, la := logsFlags()
	pos, err := parse(fs, args)
	if err != nil {
		fmt.Fprintf(c.stderr, "kiln %s: %v\n", fs.Name(), err)
		return 1
	}
	if _, err := la.varMap(); err != nil {
		fmt.Fprintln(c.stderr, "kiln logs:", err)
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
	logs, err := engine.Logs(dir, a)
	if err != nil {
		c.fail(err)
		return 1
	}
	file := logs.Current
	if la.previous {
		if len(logs.Others) == 0 {
			fmt.Fprintf(c.stderr, "kiln logs: %s has no other run's log\n", a)
			return 1
		}
		file = logs.Others[0]
	}
	if file == "" && logs.Failed != "" {
		// The hint after a failure is "kiln logs ADDR": with no result to
		// show, the failed run's log is what the user came for.
		fmt.Fprintf(c.stderr, "kiln logs: %s has no result yet; this is the log of its failed run\n", a)
		file = logs.Failed
	}
	if file == "" {
		fmt.Fprintf(c.stderr, "kiln logs: %s has no result yet%s\n", a, otherLogs(logs, a))
		return 1
	}
	if !la.previous && logs.Current != "" && logs.Failed != "" && len(logs.Others) > 0 && logs.Others[0] == logs.Failed {
		defer fmt.Fprintf(c.stderr, "kiln logs: this is the log of %s's current result; its last run failed: kiln logs -previous %s shows that run's log\n", a, a)
	}
	if segs := logSegments(logs, file); len(segs) > 1 {
		return c.printSegments(a, segs)
	}
	f, err := os.Open(file)
	if err != nil && file == logs.Failed {
		fmt.Fprintf(c.stderr, "kiln logs: the log of %s's failed run, %s, is gone\n", a, file)
		return 1
	}
	if err != nil {
		fmt.Fprintf(c.stdout, "The run that made the current result of %s printed nothing.%s\n", a, otherLogs(logs, a))
		return 0
	}
	defer f.Close()
	_, _ = io.Copy(c.stdout, f)
	return 0
}

// otherLogs points at the other runs' logs, if there are any.
func otherLogs(l engine.NodeLogs, a addr.Node) string {
	if len(l.Others) == 0 {
		return ""
	}
	return fmt.Sprintf(" (kiln logs -previous %s shows the newest other run, %s)", a, l.Others[0])
}
