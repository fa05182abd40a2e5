package sched

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// eventLog records the order in which fns start and finish.
type eventLog struct {
	mu     sync.Mutex
	seq    int
	start  map[int]int
	finish map[int]int
}

func newEventLog() *eventLog { return &eventLog{start: map[int]int{}, finish: map[int]int{}} }

func (l *eventLog) mark(m map[int]int, i int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	m[i] = l.seq
}

// randomTasks returns n tasks whose dependencies point to lower indexes.
func randomTasks(r *rand.Rand, n int) []Task {
	tasks := make([]Task, n)
	for i := range tasks {
		for range r.IntN(4) {
			if i > 0 {
				tasks[i].Deps = append(tasks[i].Deps, r.IntN(i))
			}
		}
		tasks[i].Priority = r.IntN(5)
	}
	return tasks
}

func TestTasksStartAfterDepsAndParallelismHolds(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 9))
	for trial := range 20 {
		tasks := randomTasks(r, 150)
		parallelism := 1 + trial%4
		log := newEventLog()
		var now, peak atomic.Int64
		hookCalls := map[int]int{} // written by hooks only: -race proves they never overlap
		outcomes, errs := Run(context.Background(), tasks, Options{
			Parallelism: parallelism,
			OnStart:     func(i int) { hookCalls[i]++ },
			OnFinish:    func(i int, o Outcome, err error) { hookCalls[i] += 10 },
		}, func(ctx context.Context, i int) error {
			n := now.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			log.mark(log.start, i)
			log.mark(log.finish, i)
			now.Add(-1)
			return nil
		})
		if p := peak.Load(); p > int64(parallelism) {
			t.Fatalf("trial %d: %d tasks ran at once, parallelism is %d", trial, p, parallelism)
		}
		for i, task := range tasks {
			if outcomes[i] != Succeeded || errs[i] != nil {
				t.Fatalf("trial %d: task %d: %v %v", trial, i, outcomes[i], errs[i])
			}
			if hookCalls[i] != 11 {
				t.Fatalf("trial %d: task %d: OnStart/OnFinish calls encoded %d, want 11 (one each)", trial, i, hookCalls[i])
			}
			for _, d := range task.Deps {
				if log.finish[d] > log.start[i] {
					t.Fatalf("trial %d: task %d started before its dependency %d finished", trial, i, d)
				}
			}
		}
	}
}

func TestStartsAsSoonAsDepsFinishNotLevelByLevel(t *testing.T) {
	// 0=a, 1=b (depends on a, slow), 2=c, 3=d (depends on c).
	// b returns only once d has started; a level-by-level walk would hold d
	// back until b finished, and b would give up when the guard expires.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dStarted := make(chan struct{})
	tasks := []Task{{}, {Deps: []int{0}}, {}, {Deps: []int{2}}}
	outcomes, errs := Run(ctx, tasks, Options{Parallelism: 4}, func(ctx context.Context, i int) error {
		switch i {
		case 1:
			select {
			case <-dStarted:
				return nil
			case <-ctx.Done():
				return errors.New("d never started while b was running")
			}
		case 3:
			close(dStarted)
		}
		return nil
	})
	if diff := cmp.Diff([]Outcome{Succeeded, Succeeded, Succeeded, Succeeded}, outcomes); diff != "" {
		t.Fatalf("outcomes (-want +got):\n%s\nerrors: %v", diff, errs)
	}
}

func TestReadyTasksStartByPriorityThenIndex(t *testing.T) {
	tasks := []Task{{Priority: 1}, {Priority: 5}, {Priority: 1}, {Priority: 9}, {Priority: 5}}
	var order []int
	Run(context.Background(), tasks, Options{Parallelism: 1, OnStart: func(i int) { order = append(order, i) }},
		func(ctx context.Context, i int) error { return nil })
	if diff := cmp.Diff([]int{3, 1, 4, 0, 2}, order); diff != "" {
		t.Errorf("start order (-want +got):\n%s", diff)
	}
}

func TestFailureSkipsDependentsAndSiblingsRun(t *testing.T) {
	// 0 fails; 1 depends on 0; 2 depends on 1 and 3; 3 and 4 are siblings;
	// 5 depends on 4; 6 depends on 2 and 5.
	tasks := []Task{{}, {Deps: []int{0}}, {Deps: []int{1, 3}}, {}, {}, {Deps: []int{4}}, {Deps: []int{2, 5}}}
	var ran sync.Map
	boom := errors.New("exit status 1")
	outcomes, errs := Run(context.Background(), tasks, Options{Parallelism: 2}, func(ctx context.Context, i int) error {
		ran.Store(i, true)
		if i == 0 {
			return boom
		}
		return nil
	})
	want := []Outcome{Failed, Skipped, Skipped, Succeeded, Succeeded, Succeeded, Skipped}
	if diff := cmp.Diff(want, outcomes); diff != "" {
		t.Fatalf("outcomes (-want +got):\n%s", diff)
	}
	if !errors.Is(errs[0], boom) {
		t.Errorf("errs[0] = %v, want the fn's error", errs[0])
	}
	var skipped *SkippedError
	if !errors.As(errs[1], &skipped) || skipped.Dep != 0 || skipped.Task != 1 {
		t.Errorf("errs[1] = %v, want SkippedError naming dependency 0", errs[1])
	}
	for _, i := range []int{1, 2, 6} {
		if _, ok := ran.Load(i); ok {
			t.Errorf("task %d ran although a dependency failed", i)
		}
	}
}

func TestPanicInTaskFailsIt(t *testing.T) {
	outcomes, errs := Run(context.Background(), []Task{{}, {Deps: []int{0}}}, Options{}, func(ctx context.Context, i int) error {
		panic("index out of range")
	})
	if diff := cmp.Diff([]Outcome{Failed, Skipped}, outcomes); diff != "" {
		t.Fatalf("outcomes (-want +got):\n%s", diff)
	}
	if errs[0] == nil || !strings.Contains(errs[0].Error(), "index out of range") {
		t.Errorf("errs[0] = %v, want the panic value", errs[0])
	}
}

func TestTasksThatCanNeverRunFailWithoutCallingFn(t *testing.T) {
	tasks := []Task{
		{Resources: map[string]int64{"npu": 16}},     // 0: more than the pool
		{Deps: []int{0}},                             // 1: skipped
		{Deps: []int{70}},                            // 2: no such task
		{Resources: map[string]int64{"npu": -1}},     // 3: negative
		{Deps: []int{5}},                             // 4: cycle 4 <-> 5
		{Deps: []int{4}},                             // 5
		{Deps: []int{5}},                             // 6: waits on the cycle
		{Resources: map[string]int64{"scratch": 99}}, // 7: unlimited pool
	}
	var called sync.Map
	outcomes, errs := Run(context.Background(), tasks, Options{Capacity: map[string]int64{"npu": 8}}, func(ctx context.Context, i int) error {
		called.Store(i, true)
		return nil
	})
	want := []Outcome{Failed, Skipped, Failed, Failed, Failed, Failed, Failed, Succeeded}
	if diff := cmp.Diff(want, outcomes); diff != "" {
		t.Fatalf("outcomes (-want +got):\n%s", diff)
	}
	var capErr *CapacityError
	if !errors.As(errs[0], &capErr) {
		t.Fatalf("errs[0] = %v, want *CapacityError", errs[0])
	}
	if diff := cmp.Diff(&CapacityError{Task: 0, Resource: "npu", Asked: 16, Capacity: 8}, capErr); diff != "" {
		t.Errorf("CapacityError (-want +got):\n%s", diff)
	}
	for _, s := range []string{"npu", "16", "8"} {
		if !strings.Contains(errs[0].Error(), s) {
			t.Errorf("capacity message %q does not name %q", errs[0], s)
		}
	}
	for i, target := range map[int]error{2: ErrInvalidTask, 3: ErrInvalidTask, 4: ErrCycle, 5: ErrCycle, 6: ErrCycle} {
		if !errors.Is(errs[i], target) {
			t.Errorf("errs[%d] = %v, want %v", i, errs[i], target)
		}
	}
	called.Range(func(k, _ any) bool {
		if k.(int) != 7 {
			t.Errorf("fn called for task %d, which cannot run", k)
		}
		return true
	})
}
