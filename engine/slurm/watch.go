package slurm

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"
)

// Watcher polls the cluster for the jobs being waited on, all of them in
// one squeue call per Interval.
type Watcher struct {
	Cluster  *Cluster
	Interval time.Duration // between polls; 0 means one second

	mu      sync.Mutex
	waiters map[string][]chan update
	polling bool
}

type update struct {
	status Status
	err    error
}

// Wait returns the job's final status. on, when set, is called on Wait's
// goroutine after every poll with the job's current status, or with the
// error of a poll that failed (squeue not answering); polls go on after an
// error. Wait returns early only when ctx ends.
func (w *Watcher) Wait(ctx context.Context, id string, on func(Status, error)) (Status, error) {
	ch := make(chan update, 1)
	w.mu.Lock()
	if w.waiters == nil {
		w.waiters = map[string][]chan update{}
	}
	w.waiters[id] = append(w.waiters[id], ch)
	if !w.polling {
		w.polling = true
		go w.poll()
	}
	w.mu.Unlock()
	defer w.unsubscribe(id, ch)
	for {
		select {
		case <-ctx.Done():
			return Status{ID: id}, context.Cause(ctx)
		case u := <-ch:
			if on != nil {
				on(u.status, u.err)
			}
			if u.err == nil && u.status.State.Final() {
				return u.status, nil
			}
		}
	}
}

func (w *Watcher) unsubscribe(id string, ch chan update) {
	w.mu.Lock()
	defer w.mu.Unlock()
	list := w.waiters[id]
	for i, c := range list {
		if c == ch {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(w.waiters, id)
	} else {
		w.waiters[id] = list
	}
}

// poll runs while anyone waits: query, hand out, sleep.
func (w *Watcher) poll() {
	interval := w.Interval
	if interval <= 0 {
		interval = time.Second
	}
	for {
		w.mu.Lock()
		ids := slices.Sorted(maps.Keys(w.waiters))
		if len(ids) == 0 {
			w.polling = false
			w.mu.Unlock()
			return
		}
		w.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		got, err := w.Cluster.Query(ctx, ids)
		cancel()
		w.mu.Lock()
		for _, id := range ids {
			u := update{status: got[id], err: err}
			for _, ch := range w.waiters[id] {
				select { // keep only the newest update
				case <-ch:
				default:
				}
				ch <- u
			}
		}
		w.mu.Unlock()
		time.Sleep(interval)
	}
}

// CancelAndWait cancels the jobs and waits until each has left the queue
// (reached a final state) or ctx ends.
func (w *Watcher) CancelAndWait(ctx context.Context, ids ...string) error {
	if err := w.Cluster.Cancel(ctx, ids...); err != nil {
		return err
	}
	for _, id := range ids {
		if _, err := w.Wait(ctx, id, nil); err != nil {
			return err
		}
	}
	return nil
}
