package run

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/kilnbuild/kiln/engine/pool"
)

// grant returns what a node is given of the resources it asks for, against
// the pools' capacities, and a warning per amount scaled down (only
// pool.Elastic resources are).
func grant(asked, capacity map[string]int64) (map[string]int64, []string) {
	granted := make(map[string]int64, len(asked))
	var warnings []string
	for name, amount := range asked {
		if c, limited := capacity[name]; limited && amount > c && pool.Elastic[name] != "" {
			warnings = append(warnings, fmt.Sprintf("resources.%s = %d is more than this machine has; running with %d", name, amount, c))
			amount = c
		}
		granted[name] = amount
	}
	sort.Strings(warnings)
	return granted, warnings
}

// resourceEnv is what a node's processes learn of what they were given:
// KILN_CPUS (1 unless the node asks for cpu) and KILN_MEM_MB (when it asks
// for mem_mb). These are not in the node's key: a node given fewer CPUs
// computes the same result.
func resourceEnv(granted map[string]int64) []string {
	cpus := int64(1)
	if c, ok := granted["cpu"]; ok && c > 0 {
		cpus = c
	}
	env := []string{"KILN_CPUS=" + strconv.FormatInt(cpus, 10)}
	if m, ok := granted["mem_mb"]; ok {
		env = append(env, "KILN_MEM_MB="+strconv.FormatInt(m, 10))
	}
	return env
}
