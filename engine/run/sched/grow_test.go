package sched

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// growRun runs tasks where task i, when it runs, adds adds[i] (if any), and
// records the start order and which indexes each batch got.
type growRun struct {
	mu      sync.Mutex
	order   []int
	batches map[int][2]int // parent -> first, n
	fail    map[int]bool   // by index, checked when the task runs
	adds    map[int][]Task
}

func (g *growRun) run(t *testing.T, tasks []Task, o Options) ([]Outcome, []error) {
	t.Helper()
	g.batches = map[int][2]int{}
	o.OnAdd = func(parent, first, n int) { g.batches[parent] = [2]int{first, n} }
	return RunGrowing(context.Background(), tasks, o, func(ctx context.Context, i int) ([]Task, error) {
		g.mu.Lock()
		g.order = append(g.order, i)
		fail, add := g.fail[i], g.adds[i]
		g.mu.Unlock()
		if fail {
			return add, errors.New("boom")
		}
		return add, nil
	})
}

// An aggregate that depends on the expanding task waits for every task it
// added, and the added tasks run after their parent.
func TestGrowingAggregateWaitsForAddedTasks(t *testing.T) {
	// 0 source, 1 expands into three tasks (the second depends on the
	// first of its batch), 2 aggregates over 1, 3 is independent.
	tasks := []Task{{}, {Deps: []int{0}}, {Deps: []int{1}}, {}}
	g := &growRun{adds: map[int][]Task{1: {{}, {Deps: []int{4}}, {Deps: []int{1}}}}}
	outcomes, errs := g.run(t, tasks, Options{Parallelism: 3})
	if diff := cmp.Diff([]Outcome{Succeeded, Succeeded, Succeeded, Succeeded, Succeeded, Succeeded, Succeeded}, outcomes); diff != "" {
		t.Fatalf("outcomes (-want +got):\n%s\nerrs: %v", diff, errs)
	}
	if diff := cmp.Diff(map[int][2]int{1: {4, 3}}, g.batches); diff != "" {
		t.Errorf("OnAdd (-want +got):\n%s", diff)
	}
	pos := func(i int) int { return slices.Index(g.order, i) }
	for _, added := range []int{4, 5, 6} {
		if pos(added) < pos(1) || pos(2) < pos(added) {
			t.Errorf("start order %v: added task %d must start after 1 and before 2", g.order, added)
		}
	}
	if pos(5) < pos(4) {
		t.Errorf("start order %v: 5 depends on 4", g.order)
	}
}

// A failing added task skips the aggregate; its siblings still run.
func TestGrowingFailureSkipsAggregate(t *testing.T) {
	tasks := []Task{{}, {Deps: []int{0}}}
	g := &growRun{adds: map[int][]Task{0: {{}, {}, {Deps: []int{3}}}}, fail: map[int]bool{2: true}}
	outcomes, errs := g.run(t, tasks, Options{Parallelism: 2})
	if diff := cmp.Diff([]Outcome{Succeeded, Skipped, Failed, Succeeded, Succeeded}, outcomes); diff != "" {
		t.Fatalf("outcomes (-want +got):\n%s\nerrs: %v", diff, errs)
	}
	var se *SkippedError
	if !errors.As(errs[1], &se) || se.Dep != 2 {
		t.Errorf("aggregate's error = %v, want skipped because of task 2", errs[1])
	}
}

// Tasks added by a task that fails are dropped; growth nested twice works;
// added tasks that can never run fail without running.
func TestGrowingEdgeCases(t *testing.T) {
	tasks := []Task{{}, {}, {Deps: []int{0, 1}}}
	g := &growRun{
		adds: map[int][]Task{
			0: {{}},                                          // 3, which adds 5 and 6 below
			1: {{Deps: []int{9}}},                            // 4 (fails: added by a failing task, so never added)
			3: {{}, {Resources: map[string]int64{"npu": 9}}}, // 5, 6 (too big)
		},
		fail: map[int]bool{1: true},
	}
	outcomes, errs := g.run(t, tasks, Options{Parallelism: 2, Capacity: map[string]int64{"npu": 8}})
	want := []Outcome{Succeeded, Failed, Skipped, Succeeded, Succeeded, Failed}
	if diff := cmp.Diff(want, outcomes); diff != "" {
		t.Fatalf("outcomes (-want +got):\n%s\nerrs: %v", diff, errs)
	}
	var ce *CapacityError
	if !errors.As(errs[5], &ce) {
		t.Errorf("task 5: %v, want a capacity error", errs[5])
	}
	if slices.Contains(g.order, 5) {
		t.Errorf("task 5 ran: %v", g.order)
	}
}

// A batch depending on a later index fails with ErrInvalidTask.
func TestGrowingForwardDependencyIsInvalid(t *testing.T) {
	g := &growRun{adds: map[int][]Task{0: {{Deps: []int{2}}, {}}}}
	outcomes, errs := g.run(t, []Task{{}}, Options{})
	if diff := cmp.Diff([]Outcome{Succeeded, Failed, Succeeded}, outcomes); diff != "" {
		t.Fatalf("outcomes (-want +got):\n%s", diff)
	}
	if !errors.Is(errs[1], ErrInvalidTask) {
		t.Errorf("task 1: %v", errs[1])
	}
}

// After a cancellation, added tasks are Cancelled, not run.
func TestGrowingAfterCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	outcomes, _ := RunGrowing(ctx, []Task{{}}, Options{}, func(ctx context.Context, i int) ([]Task, error) {
		if i == 0 {
			cancel()
			return []Task{{}, {}}, nil
		}
		t.Errorf("task %d ran after the cancellation", i)
		return nil, nil
	})
	if diff := cmp.Diff([]Outcome{Succeeded, Cancelled, Cancelled}, outcomes); diff != "" {
		t.Fatalf("outcomes (-want +got):\n%s", diff)
	}
}
