package review

import (
	"strings"

	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/state"
)

// restorable finds, for each node of the new version s that would rerun, a
// result in the store that the new version's key would name: applying it
// restores that result (a revert of a hyper-parameter), which costs
// nothing. It goes in dependency order, finding each node's result in the
// store (whether it reruns or not: the built state may be of another
// version), so that an upstream's digest enters the keys below it; a node
// whose key holds something known only after a run (an upstream the store
// has no result for, an attribute read from one) is not restorable.
func restorable(s *side, st *state.State, store *state.Store, rerun map[string]bool) map[string]*state.Record {
	stored := map[string]*state.Record{} // every node's result in the store, rerun or not
	digest := func(a string) string {
		if r := stored[a]; r != nil {
			return r.Digest
		}
		return ""
	}
	for _, v := range s.dag.Graph.Order() {
		n := s.dag.Nodes[v]
		a := n.Addr.String()
		lines, ok := s.lines[n.Addr]
		if !ok {
			continue
		}
		want, ok := expectedKey(lines, digest)
		if !ok {
			continue
		}
		for _, r := range candidates(st, a) {
			if store.Exists(r.Entry) && sameKey(want, r.KeyLines) {
				stored[a] = r
				break
			}
		}
	}
	out := map[string]*state.Record{}
	for a, r := range stored {
		if rerun[a] {
			out[a] = r
		}
	}
	return out
}

// candidates are the stored results a node had: its current one and the
// earlier ones the state still knows.
func candidates(st *state.State, a string) []*state.Record {
	var out []*state.Record
	if r := st.Records[a]; r.Good() && state.ValidEntry(r.Entry) {
		out = append(out, r)
	}
	for _, r := range st.History {
		if r.Addr == a && r.Good() && state.ValidEntry(r.Entry) {
			out = append(out, r)
		}
	}
	return out
}

// expectedKey is what the key lines of a node will be, from its static
// lines: upstream digests filled in, the files read left out (their
// content is in the attributes). ok is false when a value is known only
// after a run, or when lock pins apply (the key holds the pinned
// configuration).
func expectedKey(static []hash.Line, digest func(string) string) (map[string]string, bool) {
	want := map[string]string{}
	for _, l := range static {
		label, subject, value := l.Label, l.About(), l.Value
		switch {
		case label == "pin":
			// The key holds the pinned configuration, which static lines
			// do not: whether the store has it is not known here.
			return nil, false
		case label == "read":
			continue // what the file said is in the attributes
		case label == "dep":
			if value = digest(subject); value == "" {
				return nil, false
			}
		case strings.Contains(value, unknownValue):
			return nil, false
		}
		want[label+" "+subject] = value
	}
	return want, true
}

const unknownValue = "(known after apply)"

func sameKey(want map[string]string, lines []hash.Line) bool {
	n := 0
	for _, l := range lines {
		if v, ok := want[l.Label+" "+l.About()]; !ok || v != l.Value {
			return false
		}
		n++
	}
	return n == len(want)
}
