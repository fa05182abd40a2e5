package engine

import (
	"maps"

	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/state"
)

// keepBelow extends the keys a commit's lock names (keep, key → why) with
// the earlier results made from them: a node below a deterministic = false
// one has no lock entry (its key holds that node's digest), so the
// evaluation of a training run a commit names is kept with it. A result is
// kept when one of its upstream digests is that of a kept result and every
// other is of a kept or current one. current are the digests of the
// results in use.
func keepBelow(history []*state.Record, keep map[string]string, current map[string]bool) map[string]string {
	if len(keep) == 0 {
		return keep
	}
	out := maps.Clone(keep)
	named := map[string]string{} // digest → address of a kept result
	for _, h := range history {
		if out[h.Key] != "" {
			named[h.Digest] = h.Addr
		}
	}
	for changed := true; changed; {
		changed = false
		for _, h := range history {
			if out[h.Key] != "" {
				continue
			}
			ups := plan.RecordedUpstreams(h.KeyLines)
			from, ok := "", len(ups) > 0
			for addr, d := range ups {
				switch {
				case named[d] != "":
					from = addr
				case !current[d]:
					ok = false
				}
			}
			if ok && from != "" {
				out[h.Key] = "made from a result of " + from + " that the lock of a kept commit names"
				named[h.Digest] = h.Addr
				changed = true
			}
		}
	}
	return out
}

// currentDigests are the digests of the results the state's nodes hold.
func currentDigests(s *state.State) map[string]bool {
	out := map[string]bool{}
	for _, r := range s.Records {
		if r.Good() {
			out[r.Digest] = true
		}
	}
	return out
}
