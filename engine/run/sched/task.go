package sched

import (
	"errors"
	"fmt"
	"maps"
	"slices"
)

// Task is one unit of work for Run: the tasks it waits for, the pool
// resources it holds while running, and its priority among ready tasks.
type Task struct {
	Deps      []int            // indexes of tasks this one waits for
	Resources map[string]int64 // e.g. {"npu": 8}; held while the task runs
	Priority  int              // higher runs first among ready tasks
	// Remote tasks run elsewhere (a Slurm job): the goroutine only waits,
	// so they hold no slot of Parallelism; pools still bound them.
	Remote bool
}

// Outcome is what became of a task.
type Outcome int

const (
	Pending   Outcome = iota // not decided yet; Run never returns it
	Succeeded                // fn returned nil
	Failed                   // fn returned an error, panicked, or the task cannot run at all
	Skipped                  // a dependency failed or was skipped
	Cancelled                // never started (ctx cancelled or fail-fast), or interrupted by ctx
)

func (o Outcome) String() string {
	switch o {
	case Pending:
		return "pending"
	case Succeeded:
		return "succeeded"
	case Failed:
		return "failed"
	case Skipped:
		return "skipped"
	case Cancelled:
		return "cancelled"
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// Options tune Run.
type Options struct {
	Parallelism int              // most tasks running at once; <=0 means runtime.NumCPU()
	Capacity    map[string]int64 // pool sizes; a resource not listed has unlimited capacity
	// Devices are the pools whose units have ids; such a pool's capacity
	// is its number of ids (a Capacity entry for it is ignored).
	Devices  map[string]Devices
	FailFast bool        // after the first failure start nothing new; the rest are Cancelled
	OnStart  func(i int) // called just before task i's fn starts
	// OnDevices is called just before OnStart for a task that holds
	// devices, with the ids it is handed, per pool.
	OnDevices func(i int, ids map[string][]int)
	OnFinish  func(i int, o Outcome, err error)
	// OnAdd is called when the tasks first to first+n-1 were added to the
	// run by task parent (RunGrowing), before any of them starts.
	OnAdd func(parent, first, n int)
}

// CapacityError says a task asks for more of a pool than the pool holds, so
// it could never run.
type CapacityError struct {
	Task     int
	Resource string
	Asked    int64
	Capacity int64
}

func (e *CapacityError) Error() string {
	return fmt.Sprintf("task %d asks for %d %s but the pool holds only %d: lower the task's resources or raise the %s capacity",
		e.Task, e.Asked, e.Resource, e.Capacity, e.Resource)
}

// SkippedError is the error of a Skipped task: Dep is the dependency that
// did not succeed.
type SkippedError struct {
	Task int
	Dep  int
}

func (e *SkippedError) Error() string {
	return fmt.Sprintf("task %d skipped: its dependency %d did not succeed", e.Task, e.Dep)
}

var (
	// ErrFailFast is the cause of tasks Cancelled because another failed
	// while Options.FailFast was set.
	ErrFailFast = errors.New("not started: an earlier task failed and fail-fast is on")
	// ErrCycle marks tasks that can never start because they wait, directly
	// or not, on themselves.
	ErrCycle = errors.New("dependency cycle")
	// ErrInvalidTask marks tasks with out-of-range dependencies, negative
	// resource amounts, or a device pool whose ids repeat.
	ErrInvalidTask = errors.New("invalid task")
)

// taskProblem returns why task i cannot run whatever happens (a bad
// dependency index, a negative amount, more than a pool holds), or nil.
func taskProblem(tasks []Task, i int, capacity map[string]int64) error {
	for _, d := range tasks[i].Deps {
		if d < 0 || d >= len(tasks) {
			return fmt.Errorf("task %d depends on task %d, which does not exist (there are %d tasks): %w", i, d, len(tasks), ErrInvalidTask)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(tasks[i].Resources)) {
		asked := tasks[i].Resources[name]
		if asked < 0 {
			return fmt.Errorf("task %d asks for %d %s; amounts must be zero or more: %w", i, asked, name, ErrInvalidTask)
		}
		if capacity, limited := capacity[name]; limited && asked > capacity {
			return &CapacityError{Task: i, Resource: name, Asked: asked, Capacity: capacity}
		}
	}
	return nil
}

// Validate reports every problem that would make a task fail before it
// starts: dependencies out of range, negative amounts, amounts larger than a
// pool's capacity (*CapacityError), and dependency cycles. It returns nil
// when Run can start every task. The capacity of a device pool is its
// number of ids.
func Validate(tasks []Task, capacity map[string]int64) error {
	var errs []error
	for i := range tasks {
		if err := taskProblem(tasks, i, capacity); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if stuck := unorderable(tasks); len(stuck) > 0 {
		shown := stuck
		if len(shown) > 10 {
			shown = shown[:10]
		}
		return fmt.Errorf("%d tasks lie on or wait on a cycle, among them %v: remove one dependency of each cycle: %w", len(stuck), shown, ErrCycle)
	}
	return nil
}

// unorderable returns, in index order, the tasks that no topological order
// reaches: those on a cycle and those waiting on one. Deps must be in range.
func unorderable(tasks []Task) []int {
	waiting := make([]int, len(tasks))
	dependents := dependentsOf(tasks)
	var queue []int
	for i, t := range tasks {
		waiting[i] = len(t.Deps)
		if waiting[i] == 0 {
			queue = append(queue, i)
		}
	}
	for len(queue) > 0 {
		i := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for _, d := range dependents[i] {
			waiting[d]--
			if waiting[d] == 0 {
				queue = append(queue, d)
			}
		}
	}
	var stuck []int
	for i, w := range waiting {
		if w > 0 {
			stuck = append(stuck, i)
		}
	}
	return stuck
}

// dependentsOf inverts the Deps lists, ignoring out-of-range indexes. A
// dependency listed twice appears twice, matching len(Deps).
func dependentsOf(tasks []Task) [][]int {
	dependents := make([][]int, len(tasks))
	for i, t := range tasks {
		for _, d := range t.Deps {
			if d >= 0 && d < len(tasks) {
				dependents[d] = append(dependents[d], i)
			}
		}
	}
	return dependents
}
