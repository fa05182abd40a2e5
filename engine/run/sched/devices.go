package sched

import (
	"fmt"
	"slices"
)

// Devices are the units of a pool that have ids (NPUs, GPUs). A task
// asking for n of such a pool is handed n ids, never held by another task
// at the same time; the pool's capacity is len(IDs).
//
// Placement: a task asking for no more than the largest group gets its ids
// from one group, preferring a run of consecutive ids (0-3 and 4-7 for two
// 4-device tasks), the fullest group that fits (so whole groups stay free
// for larger tasks), and a run starting at a multiple of n. A task asking
// for more than the largest group takes whole free groups — consecutive
// ones with the least left over — holds all their devices and is handed
// the first n ids.
type Devices struct {
	IDs []int
	// Groups are the sets of devices that belong together, for hosts whose
	// interconnect is split: [[0,1,2,3],[4,5,6,7]]. Ids not in IDs are
	// dropped; ids in no group form one more group. Empty: one group of all.
	Groups [][]int
}

// devicePool is the placement state of one device pool. Positions index
// ids, which are ascending.
type devicePool struct {
	ids     []int
	groups  [][]int // positions per group, ascending; groups ordered by their lowest id
	used    []bool  // per position
	largest int     // size of the largest group
}

func newDevicePool(d Devices) (*devicePool, error) {
	ids := slices.Clone(d.IDs)
	slices.Sort(ids)
	pos := map[int]int{}
	for i, id := range ids {
		if i > 0 && ids[i-1] == id {
			return nil, fmt.Errorf("device %d is listed twice", id)
		}
		pos[id] = i
	}
	p := &devicePool{ids: ids, used: make([]bool, len(ids))}
	grouped := make([]bool, len(ids))
	seen := map[int]bool{}
	for _, g := range d.Groups {
		var members []int
		for _, id := range g {
			if seen[id] {
				return nil, fmt.Errorf("device %d is in two groups", id)
			}
			seen[id] = true
			if i, ok := pos[id]; ok {
				members = append(members, i)
				grouped[i] = true
			}
		}
		p.addGroup(members)
	}
	var rest []int
	for i := range ids {
		if !grouped[i] {
			rest = append(rest, i)
		}
	}
	p.addGroup(rest)
	slices.SortFunc(p.groups, func(a, b []int) int { return a[0] - b[0] })
	return p, nil
}

func (p *devicePool) addGroup(members []int) {
	if len(members) == 0 {
		return
	}
	slices.Sort(members)
	p.groups = append(p.groups, members)
	p.largest = max(p.largest, len(members))
}

// placement is what a task holds of one device pool: the positions it
// holds and the ids it is handed (the first n of them).
type placement struct {
	held  []int
	given []int
}

// place chooses n devices among the free ones, or reports that they cannot
// be placed now. It changes nothing.
func (p *devicePool) place(n int) (placement, bool) {
	if n <= 0 {
		return placement{}, true
	}
	if n <= p.largest {
		var best candidate
		found := false
		for g, members := range p.groups {
			if c, ok := p.inGroup(g, members, n); ok && (!found || c.before(best)) {
				best, found = c, true
			}
		}
		return placement{held: best.positions, given: p.idsAt(best.positions)}, found
	}
	held, ok := p.wholeGroups(n)
	if !ok {
		return placement{}, false
	}
	return placement{held: held, given: p.idsAt(held[:n])}, true
}

// candidate is a way to place a task within one group.
type candidate struct {
	positions  []int
	fragmented bool // not one run of consecutive ids
	free       int  // free devices in the group before placing
	run        int  // length of the run taken from
	group      int
}

// before ranks candidates: consecutive ids first, then the fullest group,
// then the tightest run, then the lowest group.
func (c candidate) before(o candidate) bool {
	if c.fragmented != o.fragmented {
		return !c.fragmented
	}
	if c.free != o.free {
		return c.free < o.free
	}
	if c.run != o.run {
		return c.run < o.run
	}
	return c.group < o.group
}

// inGroup places n devices in group g: in the tightest run of free
// consecutive ids that holds them, at an offset that is a multiple of n when
// one fits, else in the lowest free ids of the group.
func (p *devicePool) inGroup(g int, members []int, n int) (candidate, bool) {
	var free []int
	for _, m := range members {
		if !p.used[m] {
			free = append(free, m)
		}
	}
	if len(free) < n {
		return candidate{}, false
	}
	bestStart, bestLen := -1, 0
	for start := 0; start < len(free); {
		end := start + 1
		for end < len(free) && p.ids[free[end]] == p.ids[free[end-1]]+1 {
			end++
		}
		if l := end - start; l >= n && (bestStart < 0 || l < bestLen) {
			bestStart, bestLen = start, l
		}
		start = end
	}
	c := candidate{free: len(free), group: g}
	if bestStart < 0 {
		c.positions, c.fragmented, c.run = free[:n:n], true, n
		return c, true
	}
	off := bestStart
	for k := bestStart; k+n <= bestStart+bestLen; k++ {
		if p.ids[free[k]]%n == 0 {
			off = k
			break
		}
	}
	c.positions, c.run = slices.Clone(free[off:off+n]), bestLen
	return c, true
}

// wholeGroups holds whole free groups for a task larger than any group:
// the consecutive groups that leave the fewest devices over, or else free
// groups in order until there are n devices.
func (p *devicePool) wholeGroups(n int) ([]int, bool) {
	whole := make([]bool, len(p.groups))
	for g, members := range p.groups {
		whole[g] = true
		for _, m := range members {
			if p.used[m] {
				whole[g] = false
				break
			}
		}
	}
	bestFrom, bestTo, bestWaste := -1, -1, 0
	for from := range p.groups {
		total := 0
		for to := from; to < len(p.groups) && whole[to]; to++ {
			total += len(p.groups[to])
			if total >= n {
				if waste := total - n; bestFrom < 0 || waste < bestWaste || waste == bestWaste && to-from < bestTo-bestFrom {
					bestFrom, bestTo, bestWaste = from, to, waste
				}
				break
			}
		}
	}
	var held []int
	if bestFrom >= 0 {
		for g := bestFrom; g <= bestTo; g++ {
			held = append(held, p.groups[g]...)
		}
	} else {
		for g := range p.groups {
			if whole[g] && len(held) < n {
				held = append(held, p.groups[g]...)
			}
		}
		if len(held) < n {
			return nil, false
		}
	}
	slices.Sort(held)
	return held, true
}

func (p *devicePool) idsAt(positions []int) []int {
	out := make([]int, len(positions))
	for i, q := range positions {
		out[i] = p.ids[q]
	}
	return out
}

func (p *devicePool) take(pl placement) {
	for _, q := range pl.held {
		p.used[q] = true
	}
}

func (p *devicePool) give(pl placement) {
	for _, q := range pl.held {
		p.used[q] = false
	}
}
