package run

import (
	"time"

	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/run/sched"
)

// applyTask is one scheduler task of an apply: a node, or the placeholder
// of a dynamic block. Its fields are written by one goroutine at a time:
// the task's own while it runs, the scheduler's before and after.
type applyTask struct {
	node     *config.Node
	held     map[string][]int // the device ids it holds, from OnDevices
	started  time.Time        // when the scheduler started it
	reported bool             // the task reported its result itself
	result   NodeResult       // Outcome Cancelled until decided
	// For a placeholder once expanded: its instances' tasks, before and
	// after the scheduler numbered them.
	expanded bool
	adding   []*applyTask
	children []int
}

func (a *Applier) newTask(n *config.Node, t *sched.Task) *applyTask {
	at := &applyTask{node: n, result: NodeResult{Addr: n.Addr, Outcome: Cancelled}}
	if e := n.Meta.Executor; e != "" {
		// A Slurm job takes its resources from the cluster, not from this
		// machine's pools, and holds no local slot.
		t.Remote = true
		t.Resources = map[string]int64{slurmPool: 1, slurmPool + " " + e: 1}
		return at
	}
	// CPUs and memory beyond the machine are scaled down (grant). A node
	// asking for more of another pool than it holds holds nothing:
	// deciding it blocks it with the reason, and the rest of the pipeline
	// still runs.
	t.Resources, _ = grant(n.Meta.Resources, a.Options.Pools.Capacity())
	if a.Options.Pools.Blocked(t.Resources) != "" {
		t.Resources = nil
	}
	return at
}

func (a *Applier) task(t int) *applyTask {
	a.mu.Lock()
	defer a.mu.Unlock()
	if t < 0 || t >= len(a.tasks) {
		return nil
	}
	return a.tasks[t]
}

// expand runs a dynamic block's placeholder: its upstream nodes have
// finished, so its for_each or count is evaluated against their results,
// and each instance becomes a task. Everything waiting for the block waits
// for those tasks too.
func (a *Applier) expand(t int, at *applyTask, priority int) ([]sched.Task, error) {
	insts, diags := a.Decider.Pipeline.Expand(at.node, a.vals)
	if diags.HasErrors() {
		at.result.Outcome, at.result.Err = Failed, &DiagError{Diags: diags}
		a.Options.Hooks.Finished(at.result)
		at.reported = true
		return nil, at.result.Err
	}
	at.expanded = true
	at.reported = true // an expanded placeholder is not a result of its own
	a.letGo.expanded(insts)
	tasks := make([]sched.Task, len(insts))
	at.adding = make([]*applyTask, len(insts))
	for i, n := range insts {
		tasks[i] = sched.Task{Resources: n.Meta.Resources, Priority: priority}
		at.adding[i] = a.newTask(n, &tasks[i])
	}
	return tasks, nil
}

// added is sched.Options.OnAdd: tasks first to first+n-1 are the instances
// the placeholder parent returned.
func (a *Applier) added(parent, first, n int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	p := a.tasks[parent]
	a.tasks = append(a.tasks, p.adding[:n]...)
	for i := range n {
		p.children = append(p.children, first+i)
	}
}

// resultNodes lists the outcome of every node in scope, in dependency
// order, a dynamic block's instances where its placeholder stands; an
// expanded placeholder has no result of its own.
func (a *Applier) resultNodes() []NodeResult {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []NodeResult
	done := make([]bool, len(a.tasks))
	var emit func(t int)
	emit = func(t int) {
		if done[t] {
			return
		}
		done[t] = true
		at := a.tasks[t]
		if at.expanded {
			for _, c := range at.children {
				emit(c)
			}
			return
		}
		out = append(out, at.result)
	}
	for t := range a.tasks {
		emit(t)
	}
	return out
}

// setResult records a task's result; a rebuilt temp node's result may
// replace it later (replaceResult), from another task.
func (a *Applier) setResult(at *applyTask, r NodeResult) {
	a.mu.Lock()
	at.result = r
	a.mu.Unlock()
}
