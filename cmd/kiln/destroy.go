package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/render"
)

func destroyFlags() (*flag.FlagSet, *pipelineArgs) {
	a := &pipelineArgs{}
	fs := flag.NewFlagSet("destroy", flag.ContinueOnError)
	a.register(fs)
	return fs, a
}

func init() {
	flagSets["destroy"] = func() *flag.FlagSet { fs, _ := destroyFlags(); return fs }
	register(&command{name: "destroy", summary: "stop services, or forget nodes (their results stay in the store)", usage: "kiln destroy [PATH]            stop every service\nkiln destroy ADDR... [-- PATH] stop or forget the named nodes", run: runDestroy})
}

func runDestroy(c *cli, args []string) int {
	fs, a := destroyFlags()
	pos, err := parse(fs, args)
	if err != nil {
		fmt.Fprintln(c.stderr, "kiln destroy:", err)
		return 1
	}
	path := "."
	var targets []addr.Node
	for _, p := range pos {
		if t, err := addr.Parse(p); err == nil {
			targets = append(targets, t)
		} else {
			path = p
		}
	}
	w, ok := c.open(a, path, decision{})
	if !ok {
		return 1
	}
	done, err := w.Destroy(context.Background(), targets)
	status := 0
	if render.Destroyed(c.stdout, c.stderr, done) {
		status = 1
	}
	if err != nil {
		c.fail(err)
		return 1
	}
	if len(done) == 0 {
		render.NothingToDestroy(c.stdout)
	}
	return status
}
