package main

import (
	"fmt"
	"time"

	"github.com/kilnbuild/kiln/engine"
	"github.com/kilnbuild/kiln/engine/human"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/run/job"
)

func init() {
	register(&command{name: "job", summary: "run one prepared node inside a batch job (the Slurm executor's jobs do)", usage: "kiln job run [-await DURATION] SPEC", run: runJob})
}

// runJob is what a Slurm job runs: the one node its spec describes, as the
// local executor would, then the result's digest, written to the result
// file the spec names. It exits with the node command's exit code.
// With -await, the job was queued before its node was known, and waits
// for kiln apply to write SPEC.
func runJob(c *cli, args []string) int {
	var await time.Duration
	if len(args) == 4 && args[0] == "run" && args[1] == "-await" {
		d, err := time.ParseDuration(args[2])
		if err != nil || d <= 0 {
			fmt.Fprintf(c.stderr, "kiln job run: -await %s: want a duration such as 15m\n", args[2])
			return 2
		}
		await, args = d, []string{"run", args[3]}
	}
	if len(args) != 2 || args[0] != "run" {
		fmt.Fprintln(c.stderr, "usage: kiln job run [-await DURATION] SPEC\nkiln apply writes SPEC for each node it runs as a Slurm job; there is no other use for this command.")
		return 2
	}
	ctx, stop := c.interruptible() // scancel and --time send SIGTERM first
	defer stop()
	if await > 0 {
		if err := job.AwaitSpec(ctx, args[1], await); err != nil {
			fmt.Fprintln(c.stderr, "kiln job run:", err)
			return 1
		}
	}
	spec, err := job.ReadSpec(args[1])
	if err != nil {
		fmt.Fprintln(c.stderr, "kiln job run:", err)
		return 1
	}
	byName := map[string]kind.Kind{}
	for _, k := range kinds() {
		byName[k.Name()] = k
	}
	res := engine.RunJob(ctx, spec, byName, c.stdout)
	if err := job.WriteResult(spec.Result, res); err != nil {
		fmt.Fprintln(c.stderr, "kiln job run: writing the result:", err)
		return 1
	}
	if !res.OK {
		fmt.Fprintln(c.stderr, "kiln job run:", res.Error)
		if res.ExitCode > 0 {
			return res.ExitCode
		}
		return 1
	}
	fmt.Fprintf(c.stdout, "kiln job run: %s done on %s, digest %s\n", spec.Addr, res.Host, human.Short(res.Digest))
	return 0
}
