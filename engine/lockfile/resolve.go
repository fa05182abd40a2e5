package lockfile

import (
	"context"
	"errors"
	"maps"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/plan"
)

// ResolveStatus is what kiln lock did with one node's pins.
type ResolveStatus string

const (
	Pinned     ResolveStatus = "pinned"      // resolved now
	Kept       ResolveStatus = "kept"        // the locked pins still fit the configuration
	NeedsBuild ResolveStatus = "needs build" // only a build can resolve it (a download's checksum)
	Unresolved ResolveStatus = "failed"      // resolving failed; Err says why
)

// Resolution is one node's part of kiln lock.
type Resolution struct {
	Addr   addr.Node
	Status ResolveStatus
	Pins   map[string]string // the pins the lock now holds for the node
	Old    map[string]string // the pins it held before, when they changed
	Err    error             // for NeedsBuild, what the kind said; for Unresolved, the failure
}

// Resolve brings the pins of f up to date with the pipeline without
// building anything. A node whose kind implements kind.PinResolver keeps the
// pins that still fit its configuration, unless update names it; the others
// are resolved now (git ls-remote). Pins of nodes that left the
// configuration are dropped; node entries are left alone. env is the
// environment for the processes kinds start. Nodes with nothing to pin are
// not reported.
func Resolve(ctx context.Context, p *config.Pipeline, f *File, update func(addr.Node) bool, env []string) []Resolution {
	if update == nil {
		update = func(addr.Node) bool { return false }
	}
	inConfig := map[string]bool{}
	var out []Resolution
	for _, n := range p.Nodes {
		a := n.Addr.String()
		inConfig[a] = true
		pr, ok := n.Block.Kind.(kind.PinResolver)
		pk, ok2 := n.Block.Kind.(kind.Pinner)
		if !ok || !ok2 {
			continue
		}
		r := Resolution{Addr: n.Addr}
		ev, diags := p.Evaluate(n, plan.NewValues(), plan.SelfOutPlaceholder)
		if diags.HasErrors() || !ev.Config.IsWhollyKnown() {
			r.Status, r.Err = Unresolved, errors.New("its configuration depends on another node's result; kiln apply resolves it when it builds")
			if diags.HasErrors() {
				r.Err = diags
			}
			out = append(out, r)
			continue
		}
		cfg, _ := ev.Config.UnmarkDeep()
		kn := &kind.Node{Addr: n.Addr, Config: cfg, Root: p.Root, Out: p.OutPath(n.Addr), State: p.StateDir}
		old := f.Pins[a]
		if len(old) > 0 && !update(n.Addr) {
			if pinned, err := pk.Pin(kn, old); err == nil && !pinned.RawEquals(cfg) {
				r.Status, r.Pins = Kept, old
				out = append(out, r)
				continue
			}
		}
		pins, err := pr.ResolvePins(ctx, kn, env)
		switch {
		case errors.Is(err, kind.ErrPinNeedsBuild):
			f.SetPins(a, nil)
			r.Status, r.Err = NeedsBuild, err
		case err != nil:
			r.Status, r.Err, r.Pins = Unresolved, err, old
		case len(pins) == 0:
			f.SetPins(a, nil) // the configuration leaves nothing open (any more)
			if len(old) == 0 {
				continue
			}
			r.Status = Pinned
		default:
			f.SetPins(a, pins)
			r.Status, r.Pins = Pinned, pins
		}
		if r.Status != Unresolved && len(old) > 0 && !maps.Equal(old, r.Pins) {
			r.Old = old
		}
		out = append(out, r)
	}
	for a := range f.Pins {
		if !inConfig[a] {
			delete(f.Pins, a)
		}
	}
	return out
}
