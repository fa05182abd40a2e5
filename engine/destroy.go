package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/proc"
	"github.com/kilnbuild/kiln/engine/state"
)

// Destroyed is one node destroy acted on.
type Destroyed struct {
	Addr    string
	Stopped bool   // a service process was stopped
	Down    string // why a service's recorded process was not running (nothing to stop)
	// Leftover lists the processes of a run that an apply which died left
	// running (a service killed while it started), now stopped.
	Leftover []proc.Process
	Err      error
}

// Destroy stops the services among the named nodes (all services when none
// is named) and forgets the other named nodes' records and stable paths.
// Results stay in the store, so applying again restores them until kiln gc;
// a stopped service keeps its record, and the next plan starts it again.
func (w *Workspace) Destroy(ctx context.Context, targets []addr.Node) ([]Destroyed, error) {
	dir := w.pipeline.StateDir
	host, _ := os.Hostname()
	lock, err := state.AcquireLock(dir, state.Holder{PID: os.Getpid(), Host: host, Started: time.Now().UTC(), Command: "kiln destroy"})
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	if err := w.loadState(); err != nil {
		return nil, err
	}
	writer, err := state.OpenWriter(dir, w.state)
	if err != nil {
		return nil, err
	}
	var out []Destroyed
	_, recovered, err := settle(dir, w.store, writer)
	for _, r := range recovered {
		if len(r.Stopped) > 0 || len(r.Left) > 0 {
			d := Destroyed{Addr: r.Addr, Stopped: len(r.Left) == 0, Leftover: r.Stopped}
			if len(r.Left) > 0 {
				d.Err = fmt.Errorf("processes %v, left running by an apply that died, still run after SIGKILL", r.Left)
			}
			out = append(out, d)
		}
	}
	if err != nil {
		return out, errors.Join(err, writer.Close())
	}
	want := func(a addr.Node) bool {
		if len(targets) == 0 {
			return kind.IsService(w.pipeline.Kinds[a.Kind])
		}
		for _, t := range targets {
			if t == a || !t.Key.Set && t == a.Block() {
				return true
			}
		}
		return false
	}
	for _, r := range w.state.Sorted() {
		a, err := addr.Parse(r.Addr)
		if err != nil || !want(a) {
			continue
		}
		d := Destroyed{Addr: r.Addr}
		if k, ok := w.pipeline.Kinds[a.Kind]; ok && r.Good() {
			if svc, ok := k.(kind.Service); ok {
				n := &kind.Node{Addr: a, Root: w.pipeline.Root, Out: w.pipeline.OutPath(a), State: dir}
				if node := w.pipeline.Node(a); node != nil {
					if ev, diags := w.pipeline.Evaluate(node, plan.NewValues(), ""); !diags.HasErrors() {
						n.Config = ev.Config
					}
				}
				kr := w.records.KindRecord(r)
				if pr, ok := k.(kind.Prober); ok {
					if probe, err := pr.Probe(ctx, n, kr); err == nil && probe != nil && isGone(probe.Down) {
						d.Down = probe.Down
					}
				}
				if d.Err = svc.Stop(ctx, n, kr); d.Err == nil && d.Down == "" {
					d.Stopped = true
				}
			}
		}
		// A stopped service keeps its record, so the next plan says it is
		// down and starts it again; other nodes are forgotten.
		if d.Err == nil && !d.Stopped && d.Down == "" {
			_ = w.store.Unlink(a.FileName())
			d.Err = writer.Forget(r.Addr)
		}
		out = append(out, d)
	}
	if err := writer.Close(); err != nil {
		return out, fmt.Errorf("saving state: %w", err)
	}
	return out, nil
}

// isGone reports whether a service probe's Down says the process is not
// running at all (rather than running but not ready, which Stop ends).
func isGone(down string) bool {
	return down != "" && !strings.HasPrefix(down, "not ready")
}
