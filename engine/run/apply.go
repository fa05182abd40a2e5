package run

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/pool"
	"github.com/kilnbuild/kiln/engine/run/sched"
	"github.com/kilnbuild/kiln/engine/sandbox"
	"github.com/kilnbuild/kiln/engine/state"
)

// Options tune an apply.
type Options struct {
	Parallelism int
	Pools       pool.Set // resource pools; a resource without one is unlimited
	FailFast    bool
	Scope       []bool // vertices to apply; nil means all
	Hooks       Hooks
	Host        string // recorded in each record
	Version     string // kiln's version, recorded in each record
	// StrictLock makes a build whose key is the one kiln.lock.hcl records
	// but whose digest differs fail (Decider.Locked holds the lock);
	// otherwise it is reported in NodeResult.LockMismatch.
	StrictLock bool
	// Jobs bounds the Slurm jobs submitted and not finished, over every
	// Slurm executor (-jobs N); 0 means no bound beyond each executor's
	// max_jobs.
	Jobs  int
	Slurm SlurmOptions
	Cache CacheOptions
	// Writable are paths every sealed run may write on this host besides
	// its own (sandbox.HostWritable); they never enter a key.
	Writable []string
	// Trace names the nodes (by address) whose run is traced: allowed to
	// read the whole pipeline folder, run under strace, and reported in
	// NodeResult.Trace (kiln apply -trace).
	Trace map[string]bool
	// Decided, when set, is given each node's decision at its turn, before
	// the node acts on it (from several goroutines at once).
	Decided func(*plan.Decision)
	// LetGo lets go of each block's syntax tree once its instances have had
	// their turn (letGo), for an apply after which the pipeline is not
	// evaluated again.
	LetGo bool
}

// Applier applies a pipeline. Its Decider's state must be the one Writer
// commits to, and the caller holds the apply lock.
type Applier struct {
	Decider *plan.Decider
	DAG     *plan.DAG
	Writer  *state.Writer
	// Runs journals the runs in progress and their process groups; nil
	// journals nothing.
	Runs    *state.RunLog
	Options Options

	vals  *plan.Values
	mu    sync.Mutex   // guards tasks, which grows while the apply runs, and their results
	tasks []*applyTask // by scheduler task index
	// mismatches hands a build's lock mismatch from publish to build.
	mismatches sync.Map // addr.Node → *plan.LockMismatch
	// traces hands a traced run's report from runKind to execute.
	traces sync.Map // addr.Node → *TraceReport
	slurm  *slurmExec
	// The static graph, for queueing Slurm nodes ahead: task index by
	// node address, and each task's dependencies and dependents.
	taskOf     map[string]int
	deps       [][]int
	dependents [][]int
	cache      *remoteCache
	temps      *temps
	// held keeps the run folders of upstream results open for the rules
	// of the sealed runs that read them.
	held *sandbox.Held
	// runTemps are the private temporary folders of sealed runs that
	// ended, emptied for the next (runtemp.go).
	runTemps *runTemps
	// folders are the run folders upstream results lie in, by stable link
	// (resultFolder).
	folders sync.Map // string → resultAt
	parents sync.Map // string → string: the folders run folders lie in
	letGo   *letGo   // nil unless Options.LetGo
}

// Result is the outcome of an apply.
type Result struct {
	Nodes []NodeResult // in dependency order, nodes in scope only
	// Forgotten are the nodes whose records the apply dropped because they
	// left the configuration (set by the caller that forgets them).
	Forgotten []string
}

// Failed reports whether any node failed, was skipped or was cancelled.
func (r *Result) Failed() bool {
	for _, n := range r.Nodes {
		if n.Outcome == Failed || n.Outcome == Skipped || n.Outcome == Cancelled {
			return true
		}
	}
	return false
}

// Count returns how many nodes ended with outcome o.
func (r *Result) Count(o Outcome) int {
	c := 0
	for _, n := range r.Nodes {
		if n.Outcome == o {
			c++
		}
	}
	return c
}

// Apply runs the pipeline. It returns when every node in scope finished,
// failed, was skipped, or — once ctx is cancelled — was interrupted.
func (a *Applier) Apply(ctx context.Context) (*Result, error) {
	if a.Options.Hooks == nil {
		a.Options.Hooks = NoHooks{}
	}
	// Nodes are decided against the pools they run with, so a node that
	// asks for more than a pool holds is blocked, as the plan showed.
	a.Decider.Pools = a.Options.Pools
	a.held = sandbox.NewHeld()
	defer a.held.Close()
	a.runTemps = &runTemps{}
	defer a.runTemps.close()
	dag := a.DAG
	tasks, verts, prio := a.taskGraph()
	a.vals = plan.NewValues()
	a.slurm = newSlurmExec(a.Decider.Pipeline.StateDir, a.Options.Slurm)
	if len(a.Decider.Pipeline.Executors) > 0 {
		a.graphForAhead(tasks, verts)
		a.slurm.cancelLeftAhead(ctx)
	}
	defer a.slurm.dropAllAhead()
	a.cache = newRemoteCache(a.Options.Cache, a.note)
	if u, ok := a.Options.Hooks.(Uploads); ok && a.cache != nil {
		a.cache.uploads = u
	}
	a.temps = newTemps(a.Decider.Pipeline)
	a.tasks = make([]*applyTask, len(tasks))
	for t, v := range verts {
		tasks[t].Priority = prio[t]
		a.tasks[t] = a.newTask(dag.Nodes[v], &tasks[t])
	}
	if a.Options.LetGo {
		a.letGo = newLetGo(a.Decider.Pipeline, a.tasks)
	}
	counted, devices := schedPools(a.Options.Pools)
	capacity := a.slurmCapacity(counted)
	if err := sched.Validate(tasks, a.slurmCapacity(a.Options.Pools.Capacity())); err != nil {
		return nil, err
	}
	opts := sched.Options{
		Parallelism: a.Options.Parallelism,
		Capacity:    capacity,
		Devices:     devices,
		FailFast:    a.Options.FailFast,
		OnStart:     a.onStart,
		OnDevices:   func(t int, ids map[string][]int) { a.task(t).held = ids },
		OnAdd:       a.added,
		OnFinish:    a.finished,
	}
	sched.RunGrowing(ctx, tasks, opts, func(ctx context.Context, t int) ([]sched.Task, error) {
		at := a.task(t)
		if at.node.Placeholder() {
			defer a.letGo.ran(at.node)
			return a.expand(t, at, prio[t])
		}
		r := a.node(ctx, at.node, at.held)
		a.letGo.ran(at.node)
		a.slurm.ended(at.node)
		a.slurm.dropAhead(at.node.Addr.String()) // queued ahead, and never handed the node
		r.Started, r.Ended = at.started, time.Now()
		a.setResult(at, r)
		a.Options.Hooks.Finished(r)
		at.reported = true
		switch r.Outcome {
		case Built, Restored, UpToDate, Started:
			a.tempSucceeded(at.node)
		}
		if r.Outcome == Failed || r.Outcome == Cancelled {
			if r.Err == nil {
				r.Err = errors.New(string(r.Outcome))
			}
			return nil, r.Err
		}
		return nil, nil
	})
	a.cache.wait()
	flushErr := a.Writer.Flush()
	return &Result{Nodes: a.resultNodes()}, flushErr
}

// taskGraph is the scheduler's tasks: the vertices in scope, numbered
// densely in the graph's order, with their dependencies, resources and
// critical-path priorities (from the recorded durations). A dynamic
// block's placeholder adds one task per instance when it runs.
func (a *Applier) taskGraph() (tasks []sched.Task, verts []int, prio []int) {
	dag := a.DAG
	scope := a.Options.Scope
	if scope == nil {
		scope = make([]bool, len(dag.Nodes))
		for i := range scope {
			scope[i] = true
		}
	}
	taskOf := make([]int, len(dag.Nodes))
	for _, v := range dag.Graph.Order() {
		if scope[v] {
			taskOf[v] = len(verts)
			verts = append(verts, v)
		}
	}
	tasks = make([]sched.Task, len(verts))
	for t, v := range verts {
		for _, dep := range dag.Graph.Deps(v) {
			if scope[dep] {
				tasks[t].Deps = append(tasks[t].Deps, taskOf[dep])
			}
		}
		tasks[t].Resources = dag.Nodes[v].Meta.Resources
	}
	prio = sched.CriticalPath(tasks, func(t int) int64 {
		if r := a.Decider.State.Records[dag.Nodes[verts[t]].Addr.String()]; r != nil && r.Duration > 0 {
			return int64(r.Duration / 1e6)
		}
		return 1
	})
	return tasks, verts, prio
}

// onStart is sched.Options.OnStart.
func (a *Applier) onStart(t int) {
	at := a.task(t)
	at.started = time.Now()
	a.slurm.expect(at.node, a.Decider.Pipeline.Executor(at.node.Meta.Executor))
}

// finished is sched.Options.OnFinish: it reports the tasks that did not
// report themselves (skipped, cancelled, or panicked).
func (a *Applier) finished(t int, o sched.Outcome, err error) {
	at := a.task(t)
	if at.reported {
		return // the task reported itself
	}
	a.slurm.dropAhead(at.node.Addr.String())
	r := &at.result
	r.Started, r.Ended = at.started, time.Now()
	switch {
	case o == sched.Skipped:
		r.Outcome, r.Err = Skipped, a.skipReason(err)
	case o == sched.Cancelled:
		r.Outcome, r.Err = Cancelled, err
	case o == sched.Failed && !at.started.IsZero(): // the kind panicked
		r.Outcome, r.Err = Failed, err
	case o == sched.Failed: // an added task that cannot run
		r.Outcome, r.Err = Failed, err
	default:
		return
	}
	a.Options.Hooks.Finished(*r)
}

// slurmPool bounds the Slurm jobs of an apply; "slurm-jobs slurm.NAME"
// those of one executor.
const slurmPool = "slurm-jobs"

// slurmCapacity is the pools' capacities with the Slurm job bounds added.
func (a *Applier) slurmCapacity(pools map[string]int64) map[string]int64 {
	capacity := maps.Clone(pools)
	if capacity == nil {
		capacity = map[string]int64{}
	}
	if a.Options.Jobs > 0 {
		capacity[slurmPool] = int64(a.Options.Jobs)
	}
	for name, e := range a.Decider.Pipeline.Executors {
		if e.MaxJobs > 0 {
			capacity[slurmPool+" "+name] = int64(e.MaxJobs)
		}
	}
	return capacity
}

// note hands a remark to the hooks that show them.
func (a *Applier) note(at addr.Node, msg string) {
	if h, ok := a.Options.Hooks.(Notes); ok {
		h.Note(at, msg)
	}
}

// skipReason names the dependency that did not succeed.
func (a *Applier) skipReason(err error) error {
	var se *sched.SkippedError
	if errors.As(err, &se) && se.Dep >= 0 {
		if at := a.task(se.Dep); at != nil {
			return fmt.Errorf("%s did not succeed", at.node.Addr)
		}
	}
	return err
}

// Values are the node values as the apply left them (for outputs).
func (a *Applier) Values() *plan.Values { return a.vals }

// DiagError carries configuration diagnostics found while applying a node.
type DiagError struct{ Diags hcl.Diagnostics }

func (e *DiagError) Error() string {
	for _, d := range e.Diags {
		if d.Severity == hcl.DiagError {
			return d.Summary + ": " + d.Detail
		}
	}
	return e.Diags.Error()
}
