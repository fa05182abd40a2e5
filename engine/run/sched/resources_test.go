package sched

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestResourcePoolsNeverExceeded(t *testing.T) {
	capacity := map[string]int64{"npu": 4, "mem": 3}
	r := rand.New(rand.NewPCG(4, 2))
	tasks := randomTasks(r, 200)
	for i := range tasks {
		tasks[i].Resources = map[string]int64{
			"npu":     int64(r.IntN(5)),
			"mem":     int64(r.IntN(4)),
			"scratch": 1000, // no capacity: unlimited
		}
	}
	var mu sync.Mutex
	inUse := map[string]int64{}
	var over []string
	outcomes, errs := Run(context.Background(), tasks, Options{Parallelism: 8, Capacity: capacity}, func(ctx context.Context, i int) error {
		mu.Lock()
		for name, amount := range tasks[i].Resources {
			inUse[name] += amount
			if c, ok := capacity[name]; ok && inUse[name] > c {
				over = append(over, name)
			}
		}
		mu.Unlock()
		mu.Lock()
		for name, amount := range tasks[i].Resources {
			inUse[name] -= amount
		}
		mu.Unlock()
		return nil
	})
	if len(over) > 0 {
		t.Fatalf("pools exceeded: %v", over)
	}
	for i, o := range outcomes {
		if o != Succeeded {
			t.Fatalf("task %d: %v %v", i, o, errs[i])
		}
	}
}

func TestWaitingLargeTaskReservesItsPool(t *testing.T) {
	// Task 0 (no resources) gates task 1, which needs all 8 NPUs. Four
	// chains of 1-NPU tasks (heads 3, 13, 23, 33) hold 4 NPUs when task 1
	// becomes ready, and each finished chain task readies the next. Without
	// the reservation those would keep taking the freed NPUs and task 1
	// would wait for all chains to end. Two chains also use CPUs, so they
	// wait in another queue than task 1 and only the reservation holds them. Task 2 uses another pool and is
	// not held back by the reservation.
	const chains, length = 4, 10
	tasks := []Task{
		{Priority: 1},
		{Priority: 1, Deps: []int{0}, Resources: map[string]int64{"npu": 8}},
		{Deps: []int{0}, Resources: map[string]int64{"mem": 1}},
	}
	heads := map[int]bool{}
	for c := range chains {
		for k := range length {
			task := Task{Resources: map[string]int64{"npu": 1}}
			if c%2 == 1 {
				task.Resources["cpu"] = 1 // a different mix of pools, queued apart
			}
			if k > 0 {
				task.Deps = []int{len(tasks) - 1}
			} else {
				heads[len(tasks)] = true
			}
			tasks = append(tasks, task)
		}
	}
	gateDone := make(chan struct{})
	var started []int
	outcomes, errs := Run(context.Background(), tasks, Options{
		Parallelism: 16,
		Capacity:    map[string]int64{"npu": 8, "mem": 1, "cpu": 64},
		OnStart:     func(i int) { started = append(started, i) },
		OnFinish: func(i int, o Outcome, err error) {
			if i == 0 {
				close(gateDone)
			}
		},
	}, func(ctx context.Context, i int) error {
		if heads[i] {
			<-gateDone // hold the NPUs until task 1 is ready
		}
		return nil
	})
	for i, o := range outcomes {
		if o != Succeeded {
			t.Fatalf("task %d: %v %v", i, o, errs[i])
		}
	}
	big, other := slices.Index(started, 1), slices.Index(started, 2)
	var before []int
	for _, i := range started[:big] {
		if i >= 3 {
			before = append(before, i)
		}
	}
	if diff := cmp.Diff([]int{3, 13, 23, 33}, before); diff != "" {
		t.Errorf("1-NPU tasks started before the 8-NPU task (-want only the chain heads +got):\n%s\nstart order: %v", diff, started)
	}
	if other > big {
		t.Errorf("task 2 (another pool) started after the 8-NPU task; start order: %v", started)
	}
}
