package engine

import (
	"fmt"
	"slices"
	"time"

	"github.com/kilnbuild/kiln/engine/human"
	"github.com/kilnbuild/kiln/engine/state"
)

// keepHistory decides which earlier results (the state's History, kept for
// a revert) gc keeps, and why; the others go. Without a budget it keeps
// those younger than o.OlderThan and those o.Keep names (the locks of
// recent commits). With o.Budget it keeps, within the budget that the
// results in use already draw on, first the young ones, then those the
// commits name, then the newest: what a restore most likely needs. inUse
// are the run folders gc keeps anyway.
func keepHistory(history []*state.Record, inUse map[string]bool, store *state.Store, o GCOptions, rep *GCReport) map[string]GCKept {
	cutoff := time.Now().Add(-o.OlderThan)
	made := func(h *state.Record) time.Time { // a resumed result: when its last segment ended
		if n := len(h.Segments); n > 0 {
			return h.Segments[n-1].Started.Add(h.Segments[n-1].Duration)
		}
		return h.Started.Add(h.Duration)
	}
	young := func(h *state.Record) bool { return o.OlderThan > 0 && made(h).After(cutoff) }
	var cands []*state.Record
	for _, h := range history {
		if !inUse[h.Entry] {
			cands = append(cands, h)
		}
	}
	// Young first, then named, then the newest.
	rank := func(h *state.Record) int {
		switch {
		case young(h):
			return 0
		case o.Keep[h.Key] != "":
			return 1
		}
		return 2
	}
	slices.SortStableFunc(cands, func(a, b *state.Record) int {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		return made(b).Compare(made(a))
	})
	kept := map[string]GCKept{}
	keep := func(h *state.Record, why string) {
		kept[h.Entry] = GCKept{Key: h.Key, Entry: h.Entry, Addr: h.Addr, Why: why}
	}
	if o.Budget > 0 {
		rep.Budget = o.Budget
		for e := range inUse {
			if store.Exists(e) {
				rep.Stored += duSize(store.RunPath(e))
			}
		}
		rep.InUse = rep.Stored
	}
	for _, h := range cands {
		why := ""
		switch rank(h) {
		case 0:
			why = fmt.Sprintf("too young: created %s ago, -older-than %s", time.Since(made(h)).Round(time.Second), o.OlderThan)
		case 1:
			why = o.Keep[h.Key]
		}
		if o.Budget <= 0 {
			if why != "" {
				keep(h, why)
			}
			continue
		}
		size := duSize(store.RunPath(h.Entry))
		if rank(h) > 0 && rep.Stored+size > o.Budget {
			continue // over the budget: removed
		}
		if why == "" {
			why = "within -budget " + human.Bytes(o.Budget) + ", newest first"
		} else if rank(h) == 1 {
			why += ", within -budget " + human.Bytes(o.Budget)
		}
		rep.Stored += size
		keep(h, why)
	}
	return kept
}
