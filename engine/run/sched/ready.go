package sched

import (
	"container/heap"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// readyQueue holds the tasks whose dependencies all succeeded and that have
// not started. Tasks are grouped by the set of limited pools they use, each
// group a max-heap by (Priority desc, index asc), so one scheduling pass
// looks at the top of each group instead of every ready task.
type readyQueue struct {
	groups []*readyGroup
	byKey  map[string]*readyGroup
	size   int
}

// readyGroup is the ready tasks that use exactly the limited pools in pools.
type readyGroup struct {
	pools  []int // pool indexes, ascending
	tasks  taskHeap
	passed bool // scratch for one scheduling pass: blocked or not fitting
}

func newReadyQueue() *readyQueue {
	return &readyQueue{byKey: map[string]*readyGroup{}}
}

// push adds task i, which uses the given pools.
func (q *readyQueue) push(i int, pools []int, priority []int) {
	key := poolKey(pools)
	g, ok := q.byKey[key]
	if !ok {
		g = &readyGroup{pools: pools, tasks: taskHeap{priority: priority}}
		q.byKey[key] = g
		q.groups = append(q.groups, g)
	}
	heap.Push(&g.tasks, i)
	q.size++
}

// setPriority points every group at the priorities of a grown run.
func (q *readyQueue) setPriority(priority []int) {
	for _, g := range q.groups {
		g.tasks.priority = priority
	}
}

// best returns the group whose top task ranks highest among the groups not
// passed over in this scheduling pass, or nil.
func (q *readyQueue) best() *readyGroup {
	var best *readyGroup
	for _, g := range q.groups {
		if g.passed || g.tasks.Len() == 0 {
			continue
		}
		if best == nil || g.tasks.ranksBefore(g.tasks.top(), best.tasks.top()) {
			best = g
		}
	}
	return best
}

// pop removes and returns the top task of g.
func (q *readyQueue) pop(g *readyGroup) int {
	q.size--
	return heap.Pop(&g.tasks).(int)
}

// drain empties the queue and returns its tasks in index order.
func (q *readyQueue) drain() []int {
	var out []int
	for _, g := range q.groups {
		out = append(out, g.tasks.items...)
		g.tasks.items = g.tasks.items[:0]
	}
	q.size = 0
	slices.Sort(out)
	return out
}

func (q *readyQueue) resetPass() {
	for _, g := range q.groups {
		g.passed = false
	}
}

func poolKey(pools []int) string {
	var b strings.Builder
	for _, p := range pools {
		b.WriteString(strconv.Itoa(p))
		b.WriteByte(',')
	}
	return b.String()
}

// taskHeap is a max-heap of task indexes by (priority desc, index asc).
type taskHeap struct {
	items    []int
	priority []int
}

func (h *taskHeap) ranksBefore(a, b int) bool {
	if h.priority[a] != h.priority[b] {
		return h.priority[a] > h.priority[b]
	}
	return a < b
}

func (h *taskHeap) top() int           { return h.items[0] }
func (h *taskHeap) Len() int           { return len(h.items) }
func (h *taskHeap) Less(i, j int) bool { return h.ranksBefore(h.items[i], h.items[j]) }
func (h *taskHeap) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *taskHeap) Push(x any)         { h.items = append(h.items, x.(int)) }
func (h *taskHeap) Pop() any {
	last := len(h.items) - 1
	v := h.items[last]
	h.items = h.items[:last]
	return v
}

// poolTable numbers the limited pools (those with a capacity or devices)
// and keeps their free amounts and, for device pools, which devices are
// held.
type poolTable struct {
	names   []string
	index   map[string]int
	free    []int64
	devices []*devicePool // per pool; nil for a counted pool
	invalid []error       // per pool: why its Devices cannot be used
}

func newPoolTable(capacity map[string]int64, devices map[string]Devices) *poolTable {
	all := map[string]bool{}
	for name := range capacity {
		all[name] = true
	}
	for name := range devices {
		all[name] = true
	}
	t := &poolTable{names: slices.Sorted(maps.Keys(all)), index: map[string]int{}}
	for i, name := range t.names {
		t.index[name] = i
		d, isDevices := devices[name]
		if !isDevices {
			t.free = append(t.free, capacity[name])
			t.devices = append(t.devices, nil)
			t.invalid = append(t.invalid, nil)
			continue
		}
		dp, err := newDevicePool(d)
		if err != nil {
			err = fmt.Errorf("the %s pool: %w: %w", name, err, ErrInvalidTask)
			dp = &devicePool{}
		}
		t.free = append(t.free, int64(len(dp.ids)))
		t.devices = append(t.devices, dp)
		t.invalid = append(t.invalid, err)
	}
	return t
}

// capacity is every limited pool's size, device pools included.
func (t *poolTable) capacity() map[string]int64 {
	out := map[string]int64{}
	for i, name := range t.names {
		out[name] = t.free[i]
		if d := t.devices[i]; d != nil {
			out[name] = int64(len(d.ids))
		}
	}
	return out
}

// need is an amount of one limited pool.
type need struct {
	pool   int
	amount int64
}

// needs returns the positive amounts task t asks of limited pools, by pool
// index; resources without a capacity are unlimited and left out.
func (t *poolTable) needs(task Task) []need {
	var out []need
	for name, amount := range task.Resources {
		if p, limited := t.index[name]; limited && amount > 0 {
			out = append(out, need{pool: p, amount: amount})
		}
	}
	slices.SortFunc(out, func(a, b need) int { return a.pool - b.pool })
	return out
}

// problem is why a task with these needs cannot use the pools, or nil.
func (t *poolTable) problem(ns []need) error {
	for _, n := range ns {
		if err := t.invalid[n.pool]; err != nil {
			return err
		}
	}
	return nil
}

func (t *poolTable) fits(ns []need) bool {
	for _, n := range ns {
		if d := t.devices[n.pool]; d != nil {
			if _, ok := d.place(int(n.amount)); !ok {
				return false
			}
		} else if t.free[n.pool] < n.amount {
			return false
		}
	}
	return true
}

// held is what a running task holds of one device pool.
type held struct {
	pool int
	placement
}

// take reserves ns, which fit, and returns the devices placed.
func (t *poolTable) take(ns []need) []held {
	var out []held
	for _, n := range ns {
		d := t.devices[n.pool]
		if d == nil {
			t.free[n.pool] -= n.amount
			continue
		}
		pl, _ := d.place(int(n.amount))
		d.take(pl)
		t.free[n.pool] -= int64(len(pl.held))
		out = append(out, held{pool: n.pool, placement: pl})
	}
	return out
}

func (t *poolTable) give(ns []need, hs []held) {
	for _, n := range ns {
		if t.devices[n.pool] == nil {
			t.free[n.pool] += n.amount
		}
	}
	for _, h := range hs {
		t.devices[h.pool].give(h.placement)
		t.free[h.pool] += int64(len(h.held))
	}
}

// given maps pool names to the ids hs hands out.
func (t *poolTable) given(hs []held) map[string][]int {
	out := map[string][]int{}
	for _, h := range hs {
		out[t.names[h.pool]] = slices.Clone(h.given)
	}
	return out
}
