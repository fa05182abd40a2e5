package sched

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPlacement drives one device pool through a sequence of takes and
// releases and checks the ids each task is handed.
func TestPlacement(t *testing.T) {
	type step struct {
		take    int // devices asked; 0 with release set releases
		release int // step index whose devices are given back
		want    []int
	}
	all8 := []int{0, 1, 2, 3, 4, 5, 6, 7}
	split := [][]int{{0, 1, 2, 3}, {4, 5, 6, 7}}
	tests := []struct {
		name  string
		pool  Devices
		steps []step
	}{
		{"two 4-device tasks take 0-3 and 4-7", Devices{IDs: all8},
			[]step{{take: 4, want: []int{0, 1, 2, 3}}, {take: 4, want: []int{4, 5, 6, 7}}, {take: 1, want: nil}}},
		{"pairs fill one group before opening the next", Devices{IDs: all8, Groups: split},
			[]step{{take: 2, want: []int{0, 1}}, {take: 2, want: []int{2, 3}}, {take: 4, want: []int{4, 5, 6, 7}}}},
		{"a 4-device task stays in one group even when 4 are free across groups", Devices{IDs: all8, Groups: split},
			[]step{{take: 2, want: []int{0, 1}}, {take: 2, want: []int{2, 3}}, {take: 2, want: []int{4, 5}}, {release: 0}, {take: 4, want: nil}, {take: 2, want: []int{0, 1}}}},
		{"the tightest run that fits, aligned", Devices{IDs: all8},
			[]step{{take: 1, want: []int{0}}, {take: 3, want: []int{3, 4, 5}}, {take: 2, want: []int{1, 2}}, {take: 2, want: []int{6, 7}}}},
		{"an excluded device splits the runs", Devices{IDs: []int{0, 1, 2, 4, 5, 6, 7}},
			[]step{{take: 4, want: []int{4, 5, 6, 7}}, {take: 4, want: nil}, {take: 3, want: []int{0, 1, 2}}}},
		{"no run fits: the lowest free ids of one group", Devices{IDs: all8},
			[]step{{take: 1, want: []int{0}}, {take: 1, want: []int{1}}, {take: 1, want: []int{2}}, {release: 1}, {take: 6, want: []int{1, 3, 4, 5, 6, 7}}}},
		{"more than a group takes whole groups and is handed the first ids", Devices{IDs: all8, Groups: split},
			[]step{{take: 6, want: []int{0, 1, 2, 3, 4, 5}}, {take: 1, want: nil}}},
		{"whole groups: the consecutive free ones with least left over", Devices{IDs: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, Groups: [][]int{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}}},
			[]step{{take: 4, want: []int{0, 1, 2, 3}}, {take: 8, want: []int{4, 5, 6, 7, 8, 9, 10, 11}}}},
		{"ids in no group form one more group", Devices{IDs: all8, Groups: [][]int{{0, 1, 2, 3}}},
			[]step{{take: 4, want: []int{0, 1, 2, 3}}, {take: 4, want: []int{4, 5, 6, 7}}}},
		{"group ids the pool lacks are dropped", Devices{IDs: []int{0, 1, 2, 4, 5, 6, 7}, Groups: split},
			[]step{{take: 4, want: []int{4, 5, 6, 7}}, {take: 4, want: nil}, {take: 3, want: []int{0, 1, 2}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := newDevicePool(tt.pool)
			if err != nil {
				t.Fatal(err)
			}
			placed := make([]placement, len(tt.steps))
			for i, s := range tt.steps {
				if s.take == 0 {
					p.give(placed[s.release])
					continue
				}
				pl, ok := p.place(s.take)
				var got []int
				if ok {
					p.take(pl)
					placed[i], got = pl, pl.given
				}
				if diff := cmp.Diff(s.want, got); diff != "" {
					t.Fatalf("step %d (take %d) (-want +got):\n%s", i, s.take, diff)
				}
			}
		})
	}
}

func TestInvalidDevicePoolFailsItsTasks(t *testing.T) {
	tasks := []Task{{Resources: map[string]int64{"npu": 1}}, {Resources: map[string]int64{"cpu": 1}}}
	ran := make([]bool, len(tasks))
	outcomes, errs := Run(context.Background(), tasks, Options{
		Capacity: map[string]int64{"cpu": 1},
		Devices:  map[string]Devices{"npu": {IDs: []int{0, 1}, Groups: [][]int{{0, 1}, {1}}}},
	}, func(ctx context.Context, i int) error { ran[i] = true; return nil })
	if outcomes[0] != Failed || !errors.Is(errs[0], ErrInvalidTask) || ran[0] {
		t.Errorf("task 0: %v %v (ran %v), want Failed with ErrInvalidTask", outcomes[0], errs[0], ran[0])
	}
	if outcomes[1] != Succeeded {
		t.Errorf("task 1 (another pool): %v %v", outcomes[1], errs[1])
	}
}

// deviceWatch checks, inside the tasks' fns, that no two running tasks hold
// the same device.
type deviceWatch struct {
	mu    sync.Mutex
	ids   [][]int // per task, recorded by OnDevices
	inUse map[int]int
	bad   []string
}

func newDeviceWatch(n int) *deviceWatch {
	return &deviceWatch{ids: make([][]int, n), inUse: map[int]int{}}
}

func (w *deviceWatch) onDevices(pool string) func(int, map[string][]int) {
	return func(i int, ids map[string][]int) { w.ids[i] = ids[pool] }
}

func (w *deviceWatch) hold(i int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, id := range w.ids[i] {
		if other, busy := w.inUse[id]; busy {
			w.bad = append(w.bad, fmt.Sprintf("device %d handed to task %d while task %d holds it", id, i, other))
		}
		w.inUse[id] = i
	}
}

func (w *deviceWatch) release(i int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, id := range w.ids[i] {
		delete(w.inUse, id)
	}
}

// TestThreeFourDeviceTasksOnTwoGroups: on 8 devices split in two groups of
// 4, two 4-device tasks run at once, each on a whole group, and the third
// waits until one finishes, then takes the group it freed.
func TestThreeFourDeviceTasksOnTwoGroups(t *testing.T) {
	tasks := []Task{{Resources: map[string]int64{"npu": 4}}, {Resources: map[string]int64{"npu": 4}}, {Resources: map[string]int64{"npu": 4}}}
	w := newDeviceWatch(len(tasks))
	running := make(chan int, 3)
	release := []chan struct{}{make(chan struct{}), make(chan struct{}), make(chan struct{})}
	close(release[2])
	var mu sync.Mutex
	var started []int
	done := make(chan struct{})
	var outcomes []Outcome
	go func() {
		defer close(done)
		outcomes, _ = Run(context.Background(), tasks, Options{
			Parallelism: 8,
			Devices:     map[string]Devices{"npu": {IDs: []int{0, 1, 2, 3, 4, 5, 6, 7}, Groups: [][]int{{0, 1, 2, 3}, {4, 5, 6, 7}}}},
			OnDevices:   w.onDevices("npu"),
			OnStart:     func(i int) { mu.Lock(); started = append(started, i); mu.Unlock() },
		}, func(ctx context.Context, i int) error {
			w.hold(i)
			running <- i
			<-release[i]
			w.release(i)
			return nil
		})
	}()
	first, second := <-running, <-running
	// Both fns run, so the pass that started them is over: the third can
	// only start after a completion, and none has happened yet.
	mu.Lock()
	if diff := cmp.Diff([]int{0, 1}, started); diff != "" {
		t.Errorf("started while two tasks hold all devices (-want +got):\n%s", diff)
	}
	mu.Unlock()
	if diff := cmp.Diff([]int{0, 1}, []int{min(first, second), max(first, second)}); diff != "" {
		t.Errorf("running (-want +got):\n%s", diff)
	}
	close(release[1])
	if third := <-running; third != 2 {
		t.Errorf("task %d ran after task 1 finished, want task 2", third)
	}
	close(release[0])
	<-done
	for i, o := range outcomes {
		if o != Succeeded {
			t.Errorf("task %d: %v", i, o)
		}
	}
	want := [][]int{{0, 1, 2, 3}, {4, 5, 6, 7}, {4, 5, 6, 7}}
	if diff := cmp.Diff(want, w.ids); diff != "" {
		t.Errorf("devices handed out (-want +got):\n%s", diff)
	}
	if len(w.bad) > 0 {
		t.Errorf("overlaps: %v", w.bad)
	}
}

// TestDevicesNeverShared runs random DAGs of tasks asking for random numbers
// of devices of a pool with an excluded device and two groups: no device is
// ever held by two running tasks, every task gets exactly what it asked,
// only ids of the pool, and a task that fits a group gets one group's ids.
func TestDevicesNeverShared(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 3))
	ids := []int{0, 1, 2, 4, 5, 6, 7} // 3 is left out, as an unhealthy device would be
	groups := [][]int{{0, 1, 2, 3}, {4, 5, 6, 7}}
	groupOf := map[int]int{0: 0, 1: 0, 2: 0, 4: 1, 5: 1, 6: 1, 7: 1}
	for trial := range 20 {
		tasks := randomTasks(r, 120)
		for i := range tasks {
			tasks[i].Resources = map[string]int64{"npu": int64(r.IntN(8)), "cpu": int64(r.IntN(2))}
		}
		w := newDeviceWatch(len(tasks))
		outcomes, errs := Run(context.Background(), tasks, Options{
			Parallelism: 1 + trial%6,
			Capacity:    map[string]int64{"cpu": 3},
			Devices:     map[string]Devices{"npu": {IDs: ids, Groups: groups}},
			OnDevices:   w.onDevices("npu"),
		}, func(ctx context.Context, i int) error {
			w.hold(i)
			w.release(i)
			return nil
		})
		if len(w.bad) > 0 {
			t.Fatalf("trial %d: %v", trial, w.bad)
		}
		for i, task := range tasks {
			asked := int(task.Resources["npu"])
			if outcomes[i] != Succeeded {
				t.Fatalf("trial %d: task %d (npu=%d): %v %v", trial, i, asked, outcomes[i], errs[i])
			}
			got := w.ids[i]
			if len(got) != asked || !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != asked {
				t.Fatalf("trial %d: task %d asked %d devices, got %v", trial, i, asked, got)
			}
			for _, id := range got {
				if !slices.Contains(ids, id) {
					t.Fatalf("trial %d: task %d got device %d, which is not in the pool", trial, i, id)
				}
			}
			if asked > 0 && asked <= 4 && groupOf[got[0]] != groupOf[got[len(got)-1]] {
				t.Fatalf("trial %d: task %d asked %d devices and got %v, across groups", trial, i, asked, got)
			}
		}
	}
}

// TestAddedTasksGetDevices: tasks a running task adds (RunGrowing) are
// placed like the others.
func TestAddedTasksGetDevices(t *testing.T) {
	w := newDeviceWatch(3)
	var mu sync.Mutex
	outcomes, errs := RunGrowing(context.Background(), []Task{{}}, Options{
		Parallelism: 4,
		Devices:     map[string]Devices{"npu": {IDs: []int{0, 1, 2, 3, 4, 5, 6, 7}}},
		OnDevices: func(i int, ids map[string][]int) {
			mu.Lock()
			defer mu.Unlock()
			w.ids[i] = ids["npu"]
		},
	}, func(ctx context.Context, i int) ([]Task, error) {
		if i == 0 {
			return []Task{{Resources: map[string]int64{"npu": 4}}, {Resources: map[string]int64{"npu": 4}}}, nil
		}
		w.hold(i)
		w.release(i)
		return nil, nil
	})
	for i, o := range outcomes {
		if o != Succeeded {
			t.Fatalf("task %d: %v %v", i, o, errs[i])
		}
	}
	got := [][]int{w.ids[1], w.ids[2]}
	slices.SortFunc(got, func(a, b []int) int { return a[0] - b[0] })
	if diff := cmp.Diff([][]int{{0, 1, 2, 3}, {4, 5, 6, 7}}, got); diff != "" {
		t.Errorf("added tasks' devices (-want +got):\n%s", diff)
	}
	if len(w.bad) > 0 {
		t.Errorf("overlaps: %v", w.bad)
	}
}
