package run

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kilnbuild/kiln/engine/pool"
	"github.com/kilnbuild/kiln/engine/run/sched"
)

// schedPools splits the pools into counted capacities and device pools for
// the scheduler.
func schedPools(pools pool.Set) (map[string]int64, map[string]sched.Devices) {
	capacity := map[string]int64{}
	devices := map[string]sched.Devices{}
	for name, p := range pools {
		if p.Devices == nil {
			capacity[name] = p.Size
			continue
		}
		d := sched.Devices{IDs: p.Devices.Ints()}
		for _, g := range p.Groups {
			d.Groups = append(d.Groups, g.Ints())
		}
		devices[name] = d
	}
	return capacity, devices
}

// deviceEnv is the "VAR=ids" entries that tell a node's processes the
// devices it holds, one per pool with a variable, sorted by pool.
func deviceEnv(held map[string][]int, pools pool.Set) []string {
	var env []string
	for _, name := range slices.Sorted(maps.Keys(held)) {
		if p := pools[name]; p != nil && p.Env != "" {
			env = append(env, p.Env+"="+pool.IDs(held[name]).List())
		}
	}
	return env
}

// deviceLogLine is the first line of a node's log when it holds devices:
// "kiln: holds npu 0-3 (ASCEND_RT_VISIBLE_DEVICES=0,1,2,3)".
func deviceLogLine(held map[string][]int, pools pool.Set) string {
	line := "kiln: holds " + pool.HeldText(held)
	if env := deviceEnv(held, pools); len(env) > 0 {
		line += " (" + strings.Join(env, " ") + ")"
	}
	return fmt.Sprintln(line)
}
