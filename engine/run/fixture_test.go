package run_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/run"
	"github.com/kilnbuild/kiln/engine/state"
	"github.com/kilnbuild/kiln/providers/exec"
)

// testKind is the exec kind with a short grace period, so a process that
// ignores SIGTERM cannot slow the tests down.
func testKind() kind.Kind { return &exec.Kind{Grace: time.Second} }

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// opened is a pipeline loaded with its state, ready to plan or apply, as
// engine.Workspace does it.
type opened struct {
	pipeline *config.Pipeline
	dag      *plan.DAG
	state    *state.State
	decider  *plan.Decider
}

func open(t *testing.T, dir string) *opened {
	t.Helper()
	p, diags := config.Load(dir, config.Options{Kinds: []kind.Kind{testKind()}, Env: []string{}})
	if diags.HasErrors() {
		t.Fatalf("loading the pipeline: %s", diags.Error())
	}
	dag, diags := plan.BuildDAG(p)
	if diags.HasErrors() {
		t.Fatalf("building the graph: %s", diags.Error())
	}
	st, err := state.Load(p.StateDir)
	if err != nil {
		t.Fatalf("loading state: %v", err)
	}
	store := state.OpenStore(p.StateDir)
	d := &plan.Decider{Pipeline: p, State: st, Store: store, Stat: hash.NewStatCache(), Records: plan.OpenRecords(st.Snapshot(), store)}
	return &opened{pipeline: p, dag: dag, state: st, decider: d}
}

// plan returns each node's planned action.
func (o *opened) plan(t *testing.T) map[string]plan.Action {
	t.Helper()
	scope := make([]bool, len(o.dag.Nodes))
	for i := range scope {
		scope[i] = true
	}
	pl, diags := o.decider.Make(context.Background(), o.dag, scope)
	if diags.HasErrors() {
		t.Fatalf("plan: %s", diags.Error())
	}
	out := map[string]plan.Action{}
	for _, d := range pl.Changes {
		out[d.Node.Addr.String()] = d.Action
	}
	return out
}

// apply runs an Applier over the pipeline in dir and closes the state.
func apply(t *testing.T, ctx context.Context, dir string, opts run.Options) *run.Result {
	t.Helper()
	res, err := prepareApply(t, dir, opts)(ctx)
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	return res
}

// prepareApply opens the pipeline and its state writer and returns the
// apply, which may run on another goroutine.
func prepareApply(t *testing.T, dir string, opts run.Options) func(context.Context) (*run.Result, error) {
	t.Helper()
	o := open(t, dir)
	w, err := state.OpenWriter(o.pipeline.StateDir, o.state)
	if err != nil {
		t.Fatal(err)
	}
	o.decider.State = o.state.Snapshot()
	if opts.Parallelism == 0 {
		opts.Parallelism = 4
	}
	if opts.Writable == nil {
		// The tests count and step runs by files in the pipeline folder,
		// which a sealed run may write only as a host's writable path.
		opts.Writable = []string{dir}
	}
	a := &run.Applier{Decider: o.decider, DAG: o.dag, Writer: w, Options: opts}
	return func(ctx context.Context) (*run.Result, error) {
		res, err := a.Apply(ctx)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		return res, err
	}
}

// outcomes maps each node to its outcome.
func outcomes(r *run.Result) map[string]run.Outcome {
	out := map[string]run.Outcome{}
	for _, n := range r.Nodes {
		out[n.Addr.String()] = n.Outcome
	}
	return out
}

func result(t *testing.T, r *run.Result, a string) run.NodeResult {
	t.Helper()
	for _, n := range r.Nodes {
		if n.Addr.String() == a {
			return n
		}
	}
	t.Fatalf("no result for %s", a)
	return run.NodeResult{}
}

// countingHooks counts Finished calls per node.
type countingHooks struct {
	run.NoHooks
	mu       sync.Mutex
	finished map[string]int
}

func (h *countingHooks) Finished(r run.NodeResult) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.finished == nil {
		h.finished = map[string]int{}
	}
	h.finished[r.Addr.String()]++
}

// waitFor polls until cond holds, failing the test after a generous limit.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
