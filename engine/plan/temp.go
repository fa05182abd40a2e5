package plan

import (
	"github.com/kilnbuild/kiln/engine/addr"
)

// Temp and protected results.
//
// A temp node's result is removed from the store once every node that
// depends on it has a result built from it (engine/run). Its record stays,
// with AttrTemp set, so its digest still stands in its dependents' keys and
// nothing downstream reruns. Such a node is up to date while its key holds
// and nothing that depends on it must run; when one must, it is rebuilt
// first ("needed" below), and only then.
//
// A protected node's result is never replaced unless -replace names it:
// any decision that would run it again, or restore another result over it,
// is refused at apply (Decision.Protected), and the plan says why.

// AttrTemp, in a record's attributes, is TempRemoved once the result of a
// temp node has been removed from the store.
const (
	AttrTemp    = "kiln.temp"
	TempRemoved = "removed"
)

// TempRemoved reports whether a record is that of a temp result removed
// from the store.
func tempRemoved(dec *Decision) bool {
	return dec.Node.Meta.Temp && dec.Record.Good() && dec.Record.Attrs[AttrTemp] == TempRemoved
}

// protect marks a decision that would replace a protected node's result.
func (d *Decider) protect(dec *Decision) {
	n := dec.Node
	if !n.Meta.Protect || !dec.Record.Good() || d.Replaced(n) {
		return
	}
	switch dec.Action {
	case Rebuild, Repair, Start, Maybe:
	case Restore:
		if dec.Restore != nil && dec.Restore.Key == dec.Record.Key && dec.Restore.Entry == dec.Record.Entry {
			return // the same result, linked again
		}
	default:
		return
	}
	dec.Protected = true
	dec.Reasons = append(dec.Reasons, Reason{Kind: ReasonProtected, Subject: n.Addr.String()})
}

// neededTemps settles the temp nodes whose results were removed: one that a
// node running in this plan depends on is rebuilt first; one that a node
// that may run depends on may be; the others stay removed.
func (d *Decider) neededTemps(pl *Plan) {
	removed := map[addr.Node]*Decision{}
	for _, dec := range pl.Changes {
		if dec.TempRemoved {
			removed[dec.Node.Addr] = dec
		}
	}
	if len(removed) == 0 {
		return
	}
	// In dependency order, so a temp node rebuilt for a dependent makes its
	// own removed temp upstreams needed too.
	for i := len(pl.Changes) - 1; i >= 0; i-- {
		dep := pl.Changes[i]
		if dep.Action == NoOp {
			continue
		}
		for _, a := range dep.Node.Deps {
			t := removed[a]
			if t == nil || t.Action == Rebuild {
				continue
			}
			switch {
			case dep.Protected || dep.Blocked != "" || dep.Action == Restore:
				// It will not run, or needs no upstream files to relink.
			case dep.Action == Maybe:
				if t.Action == NoOp {
					t.Action = Maybe
					t.Reasons = []Reason{{Kind: ReasonTemp, Subject: dep.Node.Addr.String(), Detail: "maybe"}}
				}
			default:
				t.Action = Rebuild
				t.Reasons = []Reason{{Kind: ReasonTemp, Subject: dep.Node.Addr.String()}}
			}
		}
	}
}
