package sched

import (
	"context"
	"fmt"
	"slices"
)

// RunGrowing is Run for a set of tasks that grows while it runs: when fn
// succeeds it may return new tasks, which join the run at once. Their
// indexes follow the tasks already known, in the order returned, and
// Options.OnAdd tells which indexes they got before any of them starts. A
// new task's Deps may name any task known before it: those already
// finished, its parent (the task that added it), or an earlier task of the
// same batch. Every task that waits for the parent also waits for all the
// tasks the parent added, so a task aggregating over work discovered at run
// time starts only once all of it succeeded. The returned slices cover the
// added tasks too.
//
// This is how a node whose instances are known only after an upstream ran
// (a for_each over files that upstream wrote) is applied: its placeholder
// task expands it and returns one task per instance.
func RunGrowing(ctx context.Context, tasks []Task, o Options, fn func(ctx context.Context, i int) ([]Task, error)) ([]Outcome, []error) {
	s := newScheduler(ctx, slices.Clip(tasks), o, fn)
	s.loop()
	return s.outcomes, s.errs
}

// grow adds the tasks parent returned. parent has succeeded but is not
// settled yet, so its dependents still wait for it; they are made to wait
// for the new tasks as well before parent's success is passed on.
func (s *scheduler) grow(parent int, added []Task) {
	first := len(s.tasks)
	s.tasks = append(s.tasks, added...)
	for _, t := range added {
		s.priority = append(s.priority, t.Priority)
		s.needs = append(s.needs, s.pools.needs(t))
		s.waiting = append(s.waiting, 0)
		s.dependents = append(s.dependents, nil)
		s.outcomes = append(s.outcomes, Pending)
		s.errs = append(s.errs, nil)
		s.started = append(s.started, false)
		s.held = append(s.held, nil)
	}
	s.ready.setPriority(s.priority)
	if s.opts.OnAdd != nil {
		s.opts.OnAdd(parent, first, len(added))
	}
	for _, d := range s.dependents[parent] {
		if s.outcomes[d] != Pending {
			continue
		}
		for k := first; k < len(s.tasks); k++ {
			s.waiting[d]++
			s.dependents[k] = append(s.dependents[k], d)
		}
	}
	for k := first; k < len(s.tasks); k++ {
		s.wire(k)
	}
}

// wire settles what an added task k waits for, or why it cannot run.
func (s *scheduler) wire(k int) {
	if s.outcomes[k] != Pending {
		return // skipped by an earlier task of its batch
	}
	if s.stopping {
		s.settle(k, Cancelled, s.stopCause)
		return
	}
	for _, d := range s.tasks[k].Deps {
		if d >= k {
			s.settle(k, Failed, fmt.Errorf("added task %d depends on task %d, which is not known before it: %w", k, d, ErrInvalidTask))
			return
		}
	}
	if err := s.pools.problem(s.needs[k]); err != nil {
		s.settle(k, Failed, fmt.Errorf("task %d: %w", k, err))
		return
	}
	if err := taskProblem(s.tasks[:k+1], k, s.capacity); err != nil {
		s.settle(k, Failed, err)
		return
	}
	for _, d := range s.tasks[k].Deps {
		switch s.outcomes[d] {
		case Succeeded:
		case Pending:
			s.waiting[k]++
			s.dependents[d] = append(s.dependents[d], k)
		default:
			s.settle(k, Skipped, &SkippedError{Task: k, Dep: d})
			return
		}
	}
	if s.waiting[k] == 0 {
		s.becomeReady(k)
	}
}
