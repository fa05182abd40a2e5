package memo

import (
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
