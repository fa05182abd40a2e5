package main

import (
	"fmt"
	"runtime"

	"github.com/kilnbuild/kiln/engine"
	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/render"
)

func init() {
	register(&command{name: "version", summary: "print kiln's version", usage: "kiln version", run: func(c *cli, args []string) int {
		fmt.Fprintf(c.stdout, "kiln %s (%s, %s/%s)\nkey format %s, plan JSON format %s\n", engine.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH, hash.FormatVersion, render.PlanFormatVersion)
		return 0
	}})
}
