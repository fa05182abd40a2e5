package run

import (
	"context"
	"fmt"
	"maps"
	"sync"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/plan"
)

// temps follows the temp nodes (temp = true) of one apply. A temp result is
// removed from the store, its record kept and marked (plan.AttrTemp), once
// every node that depends on it succeeded in this apply: each of them then
// has a result built from it, or is up to date with it. A dependent that
// must run while the temp result is removed rebuilds it first
// (materialize), once, however many dependents ask; the rebuilt result is
// removed again when they are all done. A dependent outside the apply (a
// -target apply) keeps the result in place.
type temps struct {
	// active is false for a pipeline without a temp node (and without a
	// dynamic block, whose instances may be): nothing is followed.
	active     bool
	mu         sync.Mutex
	succeeded  map[addr.Node]bool
	removed    map[addr.Node]bool          // the result is not in the store now
	rebuilding map[addr.Node]chan struct{} // closed when the rebuild ended
	failed     map[addr.Node]error
	dependents map[addr.Node][]addr.Node // of static nodes, placeholders included
}

func newTemps(p *config.Pipeline) *temps {
	t := &temps{succeeded: map[addr.Node]bool{}, removed: map[addr.Node]bool{}, rebuilding: map[addr.Node]chan struct{}{},
		failed: map[addr.Node]error{}, dependents: map[addr.Node][]addr.Node{}}
	for _, n := range p.Nodes {
		t.active = t.active || n.Meta.Temp || n.Placeholder()
	}
	if !t.active {
		return t
	}
	for _, n := range p.Nodes {
		for _, d := range n.Deps {
			t.dependents[d] = append(t.dependents[d], n.Addr)
		}
	}
	return t
}

// isRemoved reports whether a's result is not in the store now.
func (t *temps) isRemoved(a addr.Node) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.removed[a]
}

func (t *temps) markRemoved(a addr.Node, removed bool) {
	t.mu.Lock()
	if removed {
		t.removed[a] = true
	} else {
		delete(t.removed, a)
	}
	t.mu.Unlock()
}

// prepare rebuilds the removed temp results n's run needs. It returns the
// decision to act on: dec itself, or a new one when a rebuilt result came
// out different from the one dec was made with.
func (a *Applier) prepare(ctx context.Context, dec *plan.Decision) (*plan.Decision, error) {
	n := dec.Node
	changed := false
	for _, dep := range n.Deps {
		if !a.temps.isRemoved(dep) {
			continue
		}
		before, _ := a.vals.NodeValue(dep)
		if err := a.materialize(ctx, dep, n.Addr); err != nil {
			return dec, err
		}
		after, _ := a.vals.NodeValue(dep)
		changed = changed || !before.RawEquals(after)
	}
	if !changed {
		return dec, nil
	}
	next := a.Decider.Decide(ctx, n, a.vals)
	if next.Diags.HasErrors() {
		return dec, &DiagError{Diags: next.Diags}
	}
	return next, nil
}

// materialize rebuilds the removed result of temp node t for the node
// need, or waits while another dependent has it rebuilt.
func (a *Applier) materialize(ctx context.Context, t, need addr.Node) error {
	a.temps.mu.Lock()
	if !a.temps.removed[t] {
		a.temps.mu.Unlock()
		return nil
	}
	if ch, ok := a.temps.rebuilding[t]; ok {
		a.temps.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
		a.temps.mu.Lock()
		err := a.temps.failed[t]
		a.temps.mu.Unlock()
		return err
	}
	ch := make(chan struct{})
	a.temps.rebuilding[t] = ch
	a.temps.mu.Unlock()
	err := a.rebuildTemp(ctx, t, need)
	a.temps.mu.Lock()
	delete(a.temps.rebuilding, t)
	if err != nil {
		a.temps.failed[t] = err
	} else {
		a.temps.removed[t] = false
	}
	a.temps.mu.Unlock()
	close(ch)
	return err
}

func (a *Applier) rebuildTemp(ctx context.Context, t, need addr.Node) error {
	n := a.Decider.Pipeline.Node(t)
	if n == nil {
		return fmt.Errorf("temp node %s is not in the pipeline", t)
	}
	dec := a.Decider.Decide(ctx, n, a.vals)
	if dec.Diags.HasErrors() {
		return &DiagError{Diags: dec.Diags}
	}
	dec, err := a.prepare(ctx, dec) // its own removed temp upstreams first
	if err != nil {
		return fmt.Errorf("rebuilding temp %s: %w", t, err)
	}
	if dec.Action == plan.NoOp {
		// Up to date, but not in the store: built again under its key.
		dec.Action, dec.TempRemoved = plan.Rebuild, false
		dec.Reasons = []plan.Reason{{Kind: plan.ReasonTemp, Subject: need.String()}}
	}
	// Rebuilt on demand outside the scheduler, it holds no device ids.
	res := a.build(ctx, dec, nil)
	a.Options.Hooks.Finished(res)
	a.replaceResult(t, res)
	if res.Outcome != Built && res.Outcome != Restored {
		return fmt.Errorf("rebuilding temp %s: %v", t, res.Err)
	}
	return nil
}

// replaceResult puts a rebuilt temp node's result in place of the one its
// task reported (up to date, its result removed).
func (a *Applier) replaceResult(t addr.Node, res NodeResult) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, at := range a.tasks {
		if at.node.Addr == t {
			res.Started, res.Ended = at.result.Started, at.result.Ended
			at.result = res
			return
		}
	}
}

// tempSucceeded notes that n succeeded and removes the temp results it was
// the last dependent of.
func (a *Applier) tempSucceeded(n *config.Node) {
	if !a.temps.active {
		return
	}
	a.temps.mu.Lock()
	a.temps.succeeded[n.Addr] = true
	var ready []addr.Node
	for _, dep := range n.Deps {
		if dn := a.Decider.Pipeline.Node(dep); dn != nil && dn.Meta.Temp && !a.temps.removed[dep] && a.temps.succeeded[dep] && a.allDependentsDone(dep) {
			a.temps.removed[dep] = true // claimed: removed once, below
			ready = append(ready, dep)
		}
	}
	a.temps.mu.Unlock()
	for _, t := range ready {
		if err := a.removeTemp(t); err != nil {
			a.temps.markRemoved(t, false)
			a.Options.Hooks.Output(t, fmt.Sprintf("kiln: warning: the temp result was kept: %v", err))
		}
	}
}

// allDependentsDone reports whether every node that depends on t succeeded
// in this apply. A dynamic block not expanded yet may still need it. The
// caller holds a.temps.mu.
func (a *Applier) allDependentsDone(t addr.Node) bool {
	p := a.Decider.Pipeline
	for _, d := range a.temps.dependents[t] {
		if !d.Key.All {
			if !a.temps.succeeded[d] {
				return false
			}
			continue
		}
		insts, ok := p.Expanded(d.Block())
		if !ok {
			return false
		}
		for _, in := range insts {
			if depends(in, t) && !a.temps.succeeded[in.Addr] {
				return false
			}
		}
	}
	return true
}

func depends(n *config.Node, t addr.Node) bool {
	for _, d := range n.Deps {
		if d == t {
			return true
		}
	}
	return false
}

// removeTemp removes a temp node's result from the store and keeps its
// record, marked removed, so its digest still stands for it.
func (a *Applier) removeTemp(t addr.Node) error {
	rec, ok := a.Writer.Record(t.String())
	if !ok || !rec.Good() || rec.Entry == "" {
		return nil
	}
	st := a.Decider.Store
	if linked, ok := st.Linked(t.FileName()); ok && linked == rec.Entry {
		if err := st.Unlink(t.FileName()); err != nil {
			return err
		}
	}
	if !a.onlyReference(t.String(), rec.Entry) {
		return nil // another node's record names the same result
	}
	c := *rec
	c.Attrs = maps.Clone(rec.Attrs)
	if c.Attrs == nil {
		c.Attrs = map[string]string{}
	}
	c.Attrs[plan.AttrTemp] = plan.TempRemoved
	entry := c.Entry
	c.Entry = ""
	if err := a.Writer.Commit(&c); err != nil {
		return err
	}
	if err := st.RemoveRun(entry); err != nil {
		return err
	}
	return a.Writer.Drop(c.Key)
}

// onlyReference reports whether addr's record is the only one naming entry.
func (a *Applier) onlyReference(addr, entry string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, at := range a.tasks {
		if at.node.Addr.String() == addr {
			continue
		}
		if r, ok := a.Writer.Record(at.node.Addr.String()); ok && r.Entry == entry {
			return false
		}
	}
	return true
}
