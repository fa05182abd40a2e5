package plan

import (
	"fmt"
	"sort"

	"github.com/kilnbuild/kiln/engine/config"
)

// Elastic are the resources a node can do with less of, by the name of the
// environment variable that tells its command what it got: asking for more
// CPUs or memory than the machine has runs the node with what there is
// (the command reads the amount from $KILN_CPUS, $KILN_MEM_MB or
// ${self.resources.NAME}), with a warning. Any other pool (npu) asked beyond
// its capacity stops the node: a training run sized for 8 NPUs cannot run
// on 2.
var Elastic = map[string]string{"cpu": "KILN_CPUS", "mem_mb": "KILN_MEM_MB"}

// overCapacity says why n cannot run when it asks a resource pool for more
// than the pool holds, so plan shows what apply would refuse. A pool the
// capacity does not name is not limited; an elastic one is scaled down.
func (d *Decider) overCapacity(n *config.Node) string {
	names := make([]string, 0, len(n.Meta.Resources))
	for name := range n.Meta.Resources {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		amount := n.Meta.Resources[name]
		if have, ok := d.Capacity[name]; ok && amount > have && Elastic[name] == "" {
			return fmt.Sprintf("needs %s=%d but this machine has %d (set the pool with -resource %s=N)", name, amount, have, name)
		}
	}
	return ""
}
