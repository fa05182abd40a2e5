package run

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/run/sched"
	"github.com/kilnbuild/kiln/engine/state"
)

// Options tune an apply.
type Options struct {
	Parallelism int
	Capacity    map[string]int64 // resource pools, e.g. {"npu": 8}
	FailFast    bool
	Scope       []bool // vertices to apply; nil means all
	Hooks       Hooks
	Host        string // recorded in each record
	Version     string // kiln's version, recorded in each record
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

	vals    *plan.Values
	results []NodeResult
}

// Result is the outcome of an apply.
type Result struct {
	Nodes []NodeResult // in dependency order, nodes in scope only
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
	dag := a.DAG
	scope := a.Options.Scope
	if scope == nil {
		scope = make([]bool, len(dag.Nodes))
		for i := range scope {
			scope[i] = true
		}
	}
	// Tasks are the vertices in scope, numbered densely.
	var verts []int
	taskOf := make([]int, len(dag.Nodes))
	for _, v := range dag.Graph.Order() {
		if scope[v] {
			taskOf[v] = len(verts)
			verts = append(verts, v)
		}
	}
	tasks := make([]sched.Task, len(verts))
	for t, v := range verts {
		for _, dep := range dag.Graph.Deps(v) {
			if scope[dep] {
				tasks[t].Deps = append(tasks[t].Deps, taskOf[dep])
			}
		}
		tasks[t].Resources = dag.Nodes[v].Meta.Resources
	}
	prio := sched.CriticalPath(tasks, func(t int) int64 {
		if r := a.Decider.State.Records[dag.Nodes[verts[t]].Addr.String()]; r != nil && r.Duration > 0 {
			return int64(r.Duration / 1e6)
		}
		return 1
	})
	// A node asking for more than a pool holds fails on its own, with the
	// reason; the rest of the pipeline still runs.
	tooBig := make([]error, len(tasks))
	for t := range tasks {
		tasks[t].Priority = prio[t]
		for res, amount := range tasks[t].Resources {
			if capacity, ok := a.Options.Capacity[res]; ok && amount > capacity {
				tooBig[t] = fmt.Errorf("needs %s=%d but this machine has %d (set the pool with -resource %s=N)", res, amount, capacity, res)
				tasks[t].Resources = nil
			}
		}
	}
	if err := sched.Validate(tasks, a.Options.Capacity); err != nil {
		return nil, err
	}
	a.vals = plan.NewValues()
	a.results = make([]NodeResult, len(verts))
	for t, v := range verts {
		a.results[t] = NodeResult{Addr: dag.Nodes[v].Addr, Outcome: Cancelled}
	}
	started := make([]time.Time, len(tasks)) // written by OnStart before the task runs
	reported := make([]bool, len(tasks))     // written by a task before it returns, read after
	opts := sched.Options{
		Parallelism: a.Options.Parallelism,
		Capacity:    a.Options.Capacity,
		FailFast:    a.Options.FailFast,
		OnStart:     func(t int) { started[t] = time.Now() },
		OnFinish: func(t int, o sched.Outcome, err error) {
			if reported[t] {
				return // the task reported itself
			}
			r := &a.results[t]
			r.Started, r.Ended = started[t], time.Now()
			switch {
			case o == sched.Skipped:
				r.Outcome, r.Err = Skipped, a.skipReason(err, verts)
			case o == sched.Cancelled:
				r.Outcome, r.Err = Cancelled, err
			case o == sched.Failed && !started[t].IsZero(): // the kind panicked
				r.Outcome, r.Err = Failed, err
			default:
				return
			}
			a.Options.Hooks.Finished(*r)
		},
	}
	sched.Run(ctx, tasks, opts, func(ctx context.Context, t int) error {
		var r NodeResult
		if tooBig[t] != nil {
			r = NodeResult{Addr: dag.Nodes[verts[t]].Addr, Outcome: Failed, Err: tooBig[t]}
		} else {
			r = a.node(ctx, dag.Nodes[verts[t]])
		}
		r.Started, r.Ended = started[t], time.Now()
		a.results[t] = r
		a.Options.Hooks.Finished(r)
		reported[t] = true
		if r.Outcome == Failed || r.Outcome == Cancelled {
			if r.Err == nil {
				r.Err = errors.New(string(r.Outcome))
			}
			return r.Err
		}
		return nil
	})
	flushErr := a.Writer.Flush()
	return &Result{Nodes: a.results}, flushErr
}

// skipReason names the dependency that did not succeed.
func (a *Applier) skipReason(err error, verts []int) error {
	var se *sched.SkippedError
	if errors.As(err, &se) && se.Dep >= 0 && se.Dep < len(verts) {
		return fmt.Errorf("%s did not succeed", a.DAG.Nodes[verts[se.Dep]].Addr)
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
