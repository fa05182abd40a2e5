package sched

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFailFastCancelsTheRest(t *testing.T) {
	// Parallelism 2: 0 and 1 start together; 0 fails once 1 is running; 1
	// finishes after the failure is recorded and still counts; 2 and 3 never
	// start; 4 depends on 0 and is Skipped.
	oneRunning := make(chan struct{})
	zeroFailed := make(chan struct{})
	tasks := []Task{{Priority: 2}, {Priority: 1}, {}, {}, {Deps: []int{0}}}
	var started []int
	outcomes, errs := Run(context.Background(), tasks, Options{
		Parallelism: 2,
		FailFast:    true,
		OnStart:     func(i int) { started = append(started, i) },
		OnFinish: func(i int, o Outcome, err error) {
			if i == 0 {
				close(zeroFailed)
			}
		},
	}, func(ctx context.Context, i int) error {
		switch i {
		case 0:
			<-oneRunning
			return errors.New("compile error")
		case 1:
			close(oneRunning)
			<-zeroFailed
		}
		return nil
	})
	want := []Outcome{Failed, Succeeded, Cancelled, Cancelled, Skipped}
	if diff := cmp.Diff(want, outcomes); diff != "" {
		t.Fatalf("outcomes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{0, 1}, started); diff != "" {
		t.Errorf("started (-want +got):\n%s", diff)
	}
	if !errors.Is(errs[2], ErrFailFast) {
		t.Errorf("errs[2] = %v, want ErrFailFast", errs[2])
	}
}

func TestContextCancelMidRun(t *testing.T) {
	// 0 and 1 run and wait for ctx; 2 depends on 0; 3 and 4 wait for a slot.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var running, sawDone atomic.Int32
	var started []int
	tasks := []Task{{Priority: 1}, {Priority: 1}, {Deps: []int{0}}, {}, {}}
	outcomes, errs := Run(ctx, tasks, Options{
		Parallelism: 2,
		OnStart: func(i int) {
			started = append(started, i)
		},
	}, func(ctx context.Context, i int) error {
		if running.Add(1) == 2 {
			cancel()
		}
		<-ctx.Done()
		sawDone.Add(1)
		return ctx.Err()
	})
	if diff := cmp.Diff([]int{0, 1}, started); diff != "" {
		t.Errorf("started (-want +got):\n%s", diff)
	}
	if sawDone.Load() != 2 {
		t.Errorf("%d running fns saw ctx.Done, want 2", sawDone.Load())
	}
	want := []Outcome{Cancelled, Cancelled, Cancelled, Cancelled, Cancelled}
	if diff := cmp.Diff(want, outcomes); diff != "" {
		t.Fatalf("outcomes (-want +got):\n%s", diff)
	}
	for i, err := range errs {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("errs[%d] = %v, want context.Canceled", i, err)
		}
	}
}

func TestAlreadyCancelledContextStartsNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	outcomes, _ := Run(ctx, []Task{{}, {Deps: []int{0}}}, Options{}, func(ctx context.Context, i int) error {
		t.Errorf("task %d started after cancellation", i)
		return nil
	})
	if diff := cmp.Diff([]Outcome{Cancelled, Cancelled}, outcomes); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
}
