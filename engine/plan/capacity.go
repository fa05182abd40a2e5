package plan

import (
	"fmt"
	"sort"

	"github.com/kilnbuild/kiln/engine/config"
)

// overCapacity says why n cannot run when it asks a resource pool for more
// than the pool holds, so plan shows what apply would refuse. A pool the
// capacity does not name is not limited.
func (d *Decider) overCapacity(n *config.Node) string {
	names := make([]string, 0, len(n.Meta.Resources))
	for name := range n.Meta.Resources {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		amount := n.Meta.Resources[name]
		if have, ok := d.Capacity[name]; ok && amount > have {
			return fmt.Sprintf("needs %s=%d but this machine has %d (set the pool with -resource %s=N)", name, amount, have, name)
		}
	}
	return ""
}
