package main

import (
	"flag"
	"fmt"

	"github.com/kilnbuild/kiln/engine/render"
)

func stateFlags() (*flag.FlagSet, *pipelineArgs) {
	a := &pipelineArgs{}
	fs := flag.NewFlagSet("state", flag.ContinueOnError)
	a.register(fs)
	return fs, a
}

func init() {
	flagSets["state"] = func() *flag.FlagSet { fs, _ := stateFlags(); return fs }
	register(&command{name: "state", summary: "list or show what kiln recorded", usage: "kiln state list [PATH]\nkiln state show ADDR [PATH]", run: runState})
}

func runState(c *cli, args []string) int {
	fs, _ := stateFlags()
	pos, err := parse(fs, args)
	if err != nil {
		fmt.Fprintln(c.stderr, "kiln state:", err)
		return 1
	}
	if len(pos) == 0 {
		fmt.Fprintln(c.stderr, "kiln state: use kiln state list [PATH] or kiln state show ADDR [PATH]")
		return 1
	}
	sub, rest := pos[0], pos[1:]
	var want string
	if sub == "show" {
		if len(rest) == 0 {
			fmt.Fprintln(c.stderr, "kiln state show: give a node address")
			return 1
		}
		want, rest = rest[0], rest[1:]
	} else if sub != "list" {
		fmt.Fprintf(c.stderr, "kiln state: unknown subcommand %q (list or show)\n", sub)
		return 1
	}
	path, err := onePath(rest, "state")
	if err != nil {
		fmt.Fprintln(c.stderr, err)
		return 1
	}
	s, ok := c.loadState(path)
	if !ok {
		return 1
	}
	if sub == "list" {
		render.StateList(c.stdout, s.Sorted())
		return 0
	}
	r := s.Records[want]
	if r == nil {
		fmt.Fprintf(c.stderr, "kiln state show: nothing recorded for %s (kiln state list shows what is)\n", want)
		return 1
	}
	render.Record(c.stdout, r)
	return 0
}
