// Package sched runs a set of dependent tasks in parallel: kiln's scheduler
// for `kiln apply`, independent of what a task does.
//
// A task starts the moment all its dependencies have succeeded, not level by
// level, as long as fewer than Parallelism tasks run and its resources fit
// the free part of every limited pool. Among ready tasks the highest
// Priority goes first, then the lowest index; CriticalPath gives priorities
// that start the longest chains first. A failure skips the tasks that depend
// on it, transitively, and everything else goes on, unless FailFast is set.
//
// Reservation: when the highest-ranked ready task using a pool does not fit,
// it reserves every pool it uses: no lower-ranked task that uses any of those
// pools starts until it has started, so running tasks drain and an 8-NPU
// training run is not starved by a stream of 1-NPU jobs. The trade-off is
// idle capacity while the pool drains: a 1-NPU job that would fit now waits
// behind the 8-NPU one. Tasks using none of the reserved pools still start,
// and higher-ranked tasks are never held back by lower-ranked ones.
//
// Growth: with RunGrowing, a task that succeeds may add tasks to the run (a
// node whose instances are known only once an upstream ran). They join the
// ready queue like any other, and every task waiting for the one that added
// them waits for them too.
//
// Remote tasks (Slurm jobs, whose goroutine only waits) hold no slot of
// Parallelism; pools bound them instead (kiln gives every Slurm node a
// "slurm" pool of -jobs N and a pool per executor of its max_jobs).
//
// Devices: a pool whose units have ids (Options.Devices) hands each task
// the ids it holds, through OnDevices, before its fn starts. The pool owns
// placement: a task asking for no more than a group gets ids within one
// group, preferring consecutive ids and the fullest group that fits; a
// larger task takes whole groups (see Devices). A task that fits by count
// but not by placement waits, and reserves its pools as above.
//
// Invariants: at most Parallelism fns of local tasks run at once; a pool's
// running tasks never hold more than its capacity; no device is held by two
// running tasks; every task ends with exactly one Outcome other than
// Pending, reported once through OnFinish.
//
// Locking: all scheduling state (dependency counters, the ready heaps, free
// pool amounts, held devices, outcomes) belongs to the goroutine that
// called Run and needs no lock; each fn runs on its own goroutine and
// reports only by sending its result on one channel. OnStart, OnDevices and
// OnFinish are called from Run's goroutine, so never concurrently with each
// other; OnDevices runs before the task's fn starts, so what it stores the
// fn may read. Scheduling costs a few microseconds per task.
package sched
