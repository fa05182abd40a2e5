package sched

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
)

// Run runs every task with fn and returns one Outcome and one error per
// task. A task starts as soon as all its dependencies succeeded, subject to
// Options.Parallelism and the resource pools; fn runs on its own goroutine,
// receives ctx and must return when ctx is cancelled.
//
// A task whose dependency failed or was skipped is Skipped (error
// *SkippedError), transitively, while independent tasks go on. A task that
// can never run (*CapacityError, ErrInvalidTask, ErrCycle) is Failed without
// calling fn; Validate finds all of these up front. When ctx is cancelled
// nothing new starts, running tasks are waited for, and the tasks not started
// are Cancelled; a running task that returns an error after the
// cancellation is Cancelled too, with that error.
func Run(ctx context.Context, tasks []Task, o Options, fn func(ctx context.Context, i int) error) ([]Outcome, []error) {
	return RunGrowing(ctx, tasks, o, func(ctx context.Context, i int) ([]Task, error) { return nil, fn(ctx, i) })
}

// completion is a finished fn call, sent from its goroutine to the loop.
type completion struct {
	task  int
	added []Task // tasks the call added to the run (RunGrowing)
	err   error
}

// scheduler is the state of one Run. Every field is owned by the goroutine
// running loop; fn goroutines only send on done.
type scheduler struct {
	ctx         context.Context
	tasks       []Task
	opts        Options
	fn          func(context.Context, int) ([]Task, error)
	parallelism int

	priority   []int
	needs      [][]need
	waiting    []int // unfinished dependencies per task
	dependents [][]int
	outcomes   []Outcome
	errs       []error
	started    []bool
	running    int   // tasks running, remote ones included
	local      int   // tasks running that hold a Parallelism slot
	stopping   bool  // start nothing new: ctx cancelled or fail-fast
	stopCause  error // why, for tasks added after the stop
	ready      *readyQueue
	pools      *poolTable
	capacity   map[string]int64 // every limited pool's size, device pools included
	held       [][]held         // per running task: the devices it holds
	blocked    []bool           // per scheduling pass: pools reserved by a waiting task
	done       chan completion
}

func newScheduler(ctx context.Context, tasks []Task, o Options, fn func(context.Context, int) ([]Task, error)) *scheduler {
	n := len(tasks)
	parallelism := o.Parallelism
	if parallelism <= 0 {
		parallelism = runtime.NumCPU()
	}
	s := &scheduler{
		ctx: ctx, tasks: tasks, opts: o, fn: fn, parallelism: parallelism,
		priority:   make([]int, n),
		needs:      make([][]need, n),
		waiting:    make([]int, n),
		dependents: dependentsOf(tasks),
		outcomes:   make([]Outcome, n),
		errs:       make([]error, n),
		started:    make([]bool, n),
		ready:      newReadyQueue(),
		pools:      newPoolTable(o.Capacity, o.Devices),
		held:       make([][]held, n),
		done:       make(chan completion, parallelism),
	}
	s.capacity = s.pools.capacity()
	s.blocked = make([]bool, len(s.pools.names))
	for i, t := range tasks {
		s.priority[i] = t.Priority
		s.needs[i] = s.pools.needs(t)
		s.waiting[i] = len(t.Deps)
	}
	return s
}

func (s *scheduler) loop() {
	for i := range s.tasks {
		if s.outcomes[i] != Pending {
			continue // skipped by an earlier invalid task
		}
		if err := s.pools.problem(s.needs[i]); err != nil {
			s.settle(i, Failed, fmt.Errorf("task %d: %w", i, err))
		} else if err := taskProblem(s.tasks, i, s.capacity); err != nil {
			s.settle(i, Failed, err)
		} else if s.waiting[i] == 0 {
			s.becomeReady(i)
		}
	}
	ctxDone := s.ctx.Done()
	for {
		s.dispatch()
		if s.running == 0 {
			break
		}
		select {
		case c := <-s.done:
			s.complete(c)
		case <-ctxDone:
			ctxDone = nil
			s.stop(fmt.Errorf("not started: %w", context.Cause(s.ctx)))
		}
	}
	s.settleStuck()
}

// becomeReady queues task i, whose dependencies all succeeded.
func (s *scheduler) becomeReady(i int) {
	if s.stopping {
		return
	}
	s.ready.push(i, poolsOf(s.needs[i]), s.priority)
}

func poolsOf(ns []need) []int {
	pools := make([]int, len(ns))
	for k, n := range ns {
		pools[k] = n.pool
	}
	return pools
}

// dispatch starts ready tasks while slots are free. Among ready tasks it
// takes the highest-ranked that fits the free resources. A task that does not
// fit reserves every pool it uses for the rest of the pass: lower-ranked
// tasks using any of those pools wait too, so the pools drain until it fits.
func (s *scheduler) dispatch() {
	if s.stopping {
		return
	}
	if err := s.ctx.Err(); err != nil {
		s.stop(fmt.Errorf("not started: %w", context.Cause(s.ctx)))
		return
	}
	clear(s.blocked)
	s.ready.resetPass()
	for {
		g := s.ready.best()
		if g == nil {
			return
		}
		if s.anyBlocked(g.pools) {
			g.passed = true
			continue
		}
		i := g.tasks.top()
		if !s.tasks[i].Remote && s.local >= s.parallelism {
			g.passed = true // only remote tasks may start now
			continue
		}
		if !s.pools.fits(s.needs[i]) {
			for _, p := range g.pools {
				s.blocked[p] = true
			}
			g.passed = true
			continue
		}
		s.ready.pop(g)
		s.start(i)
	}
}

func (s *scheduler) anyBlocked(pools []int) bool {
	for _, p := range pools {
		if s.blocked[p] {
			return true
		}
	}
	return false
}

func (s *scheduler) start(i int) {
	s.held[i] = s.pools.take(s.needs[i])
	s.started[i] = true
	s.running++
	if !s.tasks[i].Remote {
		s.local++
	}
	if s.opts.OnDevices != nil && len(s.held[i]) > 0 {
		s.opts.OnDevices(i, s.pools.given(s.held[i]))
	}
	if s.opts.OnStart != nil {
		s.opts.OnStart(i)
	}
	go func() {
		added, err := s.call(i)
		s.done <- completion{task: i, added: added, err: err}
	}()
}

// call runs fn for task i, turning a panic into the task's error.
func (s *scheduler) call(i int) (added []Task, err error) {
	defer func() {
		if r := recover(); r != nil {
			added, err = nil, fmt.Errorf("task %d panicked: %v\n%s", i, r, debug.Stack())
		}
	}()
	return s.fn(s.ctx, i)
}

func (s *scheduler) complete(c completion) {
	s.running--
	if !s.tasks[c.task].Remote {
		s.local--
	}
	s.pools.give(s.needs[c.task], s.held[c.task])
	s.held[c.task] = nil
	switch {
	case c.err == nil:
		if len(c.added) > 0 {
			s.grow(c.task, c.added)
		}
		s.settle(c.task, Succeeded, nil)
	case s.ctx.Err() != nil:
		s.settle(c.task, Cancelled, c.err)
	default:
		s.settle(c.task, Failed, c.err)
	}
}

// settle records the outcome of task i and passes it on: dependents of a
// success lose one unfinished dependency, dependents of anything else are
// Skipped, transitively. A failure with FailFast set stops the run.
func (s *scheduler) settle(i int, o Outcome, err error) {
	type settled struct {
		task    int
		outcome Outcome
		err     error
	}
	work := []settled{{i, o, err}}
	for len(work) > 0 {
		w := work[len(work)-1]
		work = work[:len(work)-1]
		s.record(w.task, w.outcome, w.err)
		for _, d := range s.dependents[w.task] {
			if s.outcomes[d] != Pending {
				continue
			}
			if w.outcome != Succeeded {
				s.outcomes[d] = Skipped // claimed now, so a second failed dependency does not queue it twice
				work = append(work, settled{d, Skipped, &SkippedError{Task: d, Dep: w.task}})
				continue
			}
			s.waiting[d]--
			if s.waiting[d] == 0 {
				s.becomeReady(d)
			}
		}
	}
	if o == Failed && s.opts.FailFast {
		s.stop(ErrFailFast)
	}
}

// stop starts nothing more: every task not started and not decided is
// Cancelled with cause, in index order.
func (s *scheduler) stop(cause error) {
	if s.stopping {
		return
	}
	s.stopping, s.stopCause = true, cause
	s.ready.drain()
	for i, o := range s.outcomes {
		if o == Pending && !s.started[i] {
			s.record(i, Cancelled, cause)
		}
	}
}

// settleStuck fails the tasks still pending once nothing runs and nothing is
// ready: they lie on a dependency cycle or wait on one.
func (s *scheduler) settleStuck() {
	for i, o := range s.outcomes {
		if o == Pending {
			s.record(i, Failed, fmt.Errorf("task %d never became ready: it lies on or waits on a dependency cycle; remove one dependency of the cycle: %w", i, ErrCycle))
		}
	}
}

// record stores the outcome of task i and reports it through OnFinish.
func (s *scheduler) record(i int, o Outcome, err error) {
	s.outcomes[i], s.errs[i] = o, err
	if s.opts.OnFinish != nil {
		s.opts.OnFinish(i, o, err)
	}
}
