package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hashicorp/hcl/v2"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/hash"
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
	started := make([]bool, len(tasks))
	opts := sched.Options{
		Parallelism: a.Options.Parallelism,
		Capacity:    a.Options.Capacity,
		FailFast:    a.Options.FailFast,
		OnStart:     func(t int) { started[t] = true },
		OnFinish: func(t int, o sched.Outcome, err error) {
			if started[t] {
				return // the task reported itself
			}
			r := &a.results[t]
			switch o {
			case sched.Skipped:
				r.Outcome, r.Err = Skipped, a.skipReason(err, verts)
			case sched.Cancelled:
				r.Outcome, r.Err = Cancelled, err
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
		a.results[t] = r
		a.Options.Hooks.Finished(r)
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

func nodeAddrErr(a addr.Node, err error) error { return fmt.Errorf("%s: %w", a, err) }

// CheckStatus is what a check found for one node.
type CheckStatus string

const (
	Reproduced       CheckStatus = "reproduced"
	Mismatch         CheckStatus = "MISMATCH"
	NotDeterministic CheckStatus = "not deterministic" // differs, but deterministic = false
	CheckSkipped     CheckStatus = "skipped"
	CheckFailed      CheckStatus = "failed" // the rebuild itself failed
)

// CheckResult is one node's part of a check.
type CheckResult struct {
	Addr    addr.Node
	Status  CheckStatus
	Against string   // where Want comes from: "kiln.lock.hcl" or "state"
	Want    string   // the recorded digest
	Got     string   // the rebuilt digest
	Files   []string // files that differ, when the engine hashed the output
	Reason  string   // why a node was skipped
	Err     error    // why a rebuild failed
	LogTail []string
}

// Checked is the recorded build a check compares against.
type Checked struct{ Key, Digest string }

// CheckOptions say what to check.
type CheckOptions struct {
	Named  map[addr.Node]bool // nodes named by the user; empty: every built node
	Locked map[string]Checked // the lock file's node entries, by address
	Dir    string             // scratch folder, removed afterwards
}

// Check rebuilds nodes of the plan pl, in its order, each into a scratch
// folder under o.Dir, with the current upstream outputs, and compares the
// digest with the lock's (when it records the same key) or the state's. It
// writes nothing to the store, the state or the lock. A node with
// deterministic = false is rebuilt only when named, and a difference is
// reported, not failed. Services, nodes with in-place outputs and nodes that
// are not up to date are skipped with the reason.
func (a *Applier) Check(ctx context.Context, pl *plan.Plan, o CheckOptions) []CheckResult {
	d := a.Decider
	a.vals = plan.NewValues()
	for _, dec := range pl.Changes {
		a.vals.Set(dec.Node.Addr, d.ValueAfter(dec))
	}
	defer os.RemoveAll(o.Dir)
	var out []CheckResult
	for _, dec := range pl.Changes {
		n := dec.Node
		if len(o.Named) > 0 && !o.Named[n.Addr] && !o.Named[n.Addr.Block()] {
			continue
		}
		r := CheckResult{Addr: n.Addr}
		if r.Reason = skipReason(dec, len(o.Named) > 0); r.Reason != "" {
			r.Status = CheckSkipped
			out = append(out, r)
			continue
		}
		rec := dec.Record
		r.Against, r.Want = "state", rec.Digest
		if l, ok := o.Locked[n.Addr.String()]; ok && l.Key == rec.Key {
			r.Against, r.Want = "kiln.lock.hcl", l.Digest
		}
		a.checkNode(ctx, dec, o.Dir, &r)
		out = append(out, r)
	}
	return out
}

// skipReason says why a node cannot be checked, or "".
func skipReason(dec *plan.Decision, named bool) string {
	switch {
	case !dec.Record.Good():
		return "never built"
	case dec.Kind.Name() == "service":
		return "a service is a running process, not a build"
	case len(dec.Record.Outputs) > 0:
		return "it writes in-place outputs, which a rebuild would overwrite"
	case dec.Action != plan.NoOp:
		return fmt.Sprintf("not up to date (the plan says %s): run kiln apply first", dec.Action.Word())
	case !dec.Node.Meta.Deterministic && !named:
		return "deterministic = false (name it to rebuild it anyway)"
	}
	return ""
}

// checkNode rebuilds one node into a scratch folder and compares digests.
func (a *Applier) checkNode(ctx context.Context, dec *plan.Decision, root string, r *CheckResult) {
	fail := func(err error) { r.Status, r.Err = CheckFailed, err }
	if err := os.MkdirAll(root, 0o755); err != nil {
		fail(err)
		return
	}
	dir, err := os.MkdirTemp(root, dec.Node.Addr.FileName()+"-")
	if err != nil {
		fail(err)
		return
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		fail(err)
		return
	}
	log, err := openLog(filepath.Join(dir, "log"), func(string) {})
	if err != nil {
		fail(err)
		return
	}
	res, _, err := a.runKind(ctx, dec, out, false, log)
	_ = log.Close()
	if err != nil {
		fail(err)
		r.LogTail = log.Tail()
		return
	}
	if res != nil && res.Digest != "" {
		r.Got = res.Digest
	} else {
		got, err := hash.Tree(out, nil)
		if err != nil {
			fail(fmt.Errorf("hashing the rebuilt result: %w", err))
			return
		}
		r.Got = got.String()
	}
	if r.Got == r.Want {
		r.Status = Reproduced
		return
	}
	r.Status = Mismatch
	if !dec.Node.Meta.Deterministic {
		r.Status = NotDeterministic
	}
	if res == nil || res.Digest == "" {
		r.Files = diffFiles(a.Decider.Store.EntryPath(dec.Record.Entry), out)
	}
}

// diffFiles names the files that differ between a stored result and its
// rebuild; nil when a side cannot be read.
func diffFiles(stored, rebuilt string) []string {
	want, err := hash.Manifest(stored, nil)
	if err != nil {
		return nil
	}
	got, err := hash.Manifest(rebuilt, nil)
	if err != nil {
		return nil
	}
	return hash.DiffManifests(want, got)
}
