package memo

import (
	"context"
	"fmt"
	"time"

	"github.com/kilnbuild/kiln/engine/hash"
)

// Check reports whether the pipeline at o.Path is certainly up to date,
// and how many nodes it has, from the memo of the last plan or apply that
// found it so, without loading the pipeline or its state. false means
// "make the full plan", never "out of date". A check that held records in
// the memo what stat alone can vouch for from then on (settle).
func Check(o Options) (nodes int, upToDate bool) {
	s, ok := open(o, nil, newWhyNot("the no-change check", o.Say))
	if !ok {
		return 0, false
	}
	return s.noChanges()
}

// CheckThenReplan is Check and, where it finds a node not up to date,
// Replan, from one read of the memo: what kiln plan asks. upToDate: the
// pipeline's nodes are; otherwise r is the plan after the edit, or nil
// for "make the full plan", as it is when noReplan says why the plan
// after an edit may not be made from the memo.
func CheckThenReplan(ctx context.Context, o Options, noReplan string) (nodes int, upToDate bool, r *Result) {
	check := newWhyNot("the no-change check", o.Say)
	s, ok := open(o, nil, check)
	if !ok {
		newWhyNot("the plan after an edit", o.Say).miss("%s", check.reason)
		return 0, false, nil
	}
	if nodes, upToDate = s.noChanges(); upToDate {
		return nodes, true, nil
	}
	if s.why = newWhyNot("the plan after an edit", o.Say); noReplan != "" {
		s.why.miss("%s", noReplan)
		return 0, false, nil
	}
	r, _ = s.replan(ctx, o)
	return 0, false, r
}

// noChanges is Check once the memo is open.
func (s *session) noChanges() (nodes int, upToDate bool) {
	if full := s.fullNode(); full != "" {
		return 0, s.why.miss("%s", full)
	}
	start := time.Now()
	links, linksOK := hash.StampOf(s.store.LinksDir())
	trusted := linksOK && s.memo.Links != nil && *s.memo.Links == links
	if _, ok := s.checkAll(trusted, true); !ok {
		return 0, false
	}
	s.why.took(fmt.Sprintf("all %d nodes up to date", len(s.memo.Nodes)))
	s.saveStat()
	if linksOK && (!trusted || s.unsealed.Load()) {
		s.settle(links, start, !trusted)
	}
	return len(s.memo.Nodes), true
}
