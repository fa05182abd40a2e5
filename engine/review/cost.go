package review

import (
	"fmt"
	"maps"
	"slices"

	"github.com/kilnbuild/kiln/engine/state"
)

// estimate fills in the cost of rerunning every changed, added and
// invalidated node of the new version s, from the last successful run of
// each recorded in stateDir (all its segments, for a resumed result); a
// node whose result for the new version is in the store restores it, at
// no cost. A node weighs on a resource with what the new
// version declares (resources = { npu = 8 }), or else with what its last
// run held, on each machine of a Slurm job over several (slurm { nodes }).
// A missing state folder means nothing ran yet.
func (r *Report) estimate(s *side, stateDir string) error {
	st, err := state.Load(stateDir)
	if err != nil {
		return fmt.Errorf("reading recorded durations for the cost estimate: %w", err)
	}
	rerun := map[string]bool{}
	for _, c := range r.Changed {
		rerun[c.Address] = true
	}
	for _, n := range r.Added {
		rerun[n.Address] = true
	}
	for _, n := range r.Invalidated {
		rerun[n.Address] = true
	}
	c := Cost{Unknown: []string{}, Hours: []ResourceHours{}, Nodes: []NodeCost{}}
	hours := map[string]float64{}
	restores := restorable(s, st, state.OpenStore(stateDir), rerun)
	for _, v := range s.dag.Graph.Order() {
		n := s.dag.Nodes[v]
		a := n.Addr.String()
		if !rerun[a] {
			continue
		}
		nc := NodeCost{Address: a, Resources: n.Meta.Resources}
		rec := st.Records[a]
		if len(nc.Resources) == 0 && rec != nil {
			nc.Resources = rec.Resources
		}
		if !rec.Good() && restores[a] == nil {
			c.Unknown = append(c.Unknown, a)
			c.Nodes = append(c.Nodes, nc)
			continue
		}
		var secs float64
		if rec.Good() {
			secs = rec.Duration.Seconds()
		}
		if restores[a] != nil {
			// The store has the result this version's key names: a restore.
			secs, nc.Restore = 0, true
			c.Restores++
		}
		nc.Seconds = &secs
		c.Seconds += secs
		c.Known++
		// A Slurm job over several machines holds its resources on each.
		machines := 1
		if j := n.Meta.Slurm; j != nil && j.Nodes > 1 && n.Meta.Executor != "" {
			machines = j.Nodes
		}
		for res, amount := range nc.Resources {
			hours[res] += secs / 3600 * float64(amount) * float64(machines)
		}
		c.Nodes = append(c.Nodes, nc)
	}
	for _, res := range slices.Sorted(maps.Keys(hours)) {
		c.Hours = append(c.Hours, ResourceHours{Resource: res, Hours: hours[res]})
	}
	r.Cost = c
	return nil
}
