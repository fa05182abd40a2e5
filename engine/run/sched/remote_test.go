package sched

import (
	"context"
	"sync"
	"testing"
	"time"
)

// Remote tasks (Slurm jobs) hold no Parallelism slot: with one local slot,
// four remote tasks and a local one all run at once, while a second local
// task waits; a pool still bounds the remote ones.
func TestRemoteTasksHoldNoLocalSlot(t *testing.T) {
	tasks := []Task{
		{Remote: true, Resources: map[string]int64{"slurm": 1}},
		{Remote: true, Resources: map[string]int64{"slurm": 1}},
		{Remote: true, Resources: map[string]int64{"slurm": 1}},
		{Remote: true, Resources: map[string]int64{"slurm": 1}},
		{Remote: true, Resources: map[string]int64{"slurm": 1}}, // beyond the pool: waits
		{},
		{},
	}
	var mu sync.Mutex
	running, local, remote := 0, 0, 0
	peakLocal, peakRemote := 0, 0
	all := make(chan struct{})
	first := true
	_, errs := Run(context.Background(), tasks, Options{Parallelism: 1, Capacity: map[string]int64{"slurm": 4}}, func(ctx context.Context, i int) error {
		mu.Lock()
		running++
		if tasks[i].Remote {
			remote++
		} else {
			local++
		}
		peakLocal, peakRemote = max(peakLocal, local), max(peakRemote, remote)
		if running == 5 && first {
			first = false
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
		case <-time.After(10 * time.Second): // the scheduler held some back: the peaks say so
		}
		mu.Lock()
		running--
		if tasks[i].Remote {
			remote--
		} else {
			local--
		}
		mu.Unlock()
		return nil
	})
	for i, err := range errs {
		if err != nil {
			t.Errorf("task %d: %v", i, err)
		}
	}
	if peakLocal != 1 || peakRemote != 4 {
		t.Errorf("peak local %d, remote %d; want 1 local (Parallelism) and 4 remote (the pool) at once", peakLocal, peakRemote)
	}
}
