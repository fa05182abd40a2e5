package plan

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/state"
)

// Deciding a built node from its recorded key, without its configuration:
// the engine's plan after an edit that left the pipeline's files,
// variables and environment as they were (engine/memo, Replan). Restamp
// gives the record's lines the new digests of what changed, as keyLines
// would write them for the same configuration; DecideRecorded then decides
// by the same code as Decide. Both agree as long as the node's evaluated
// configuration is the one it was built with, which is what the memo
// checks before it asks.

// Restamp rewrites a built node's key lines — its record's, as keyLines
// wrote them — for new digests of its input and key files and new states of
// its upstreams. files maps the subject of an input or file line to its new
// digest; ups maps an upstream's address (the note of its dep line) to its
// new digest, or to "" when it will run first: its line keeps the digest the
// node was built with and is marked waiting, as in Decide. Lines of neither
// are kept. ok is false when the lines cannot be rewritten so (a dep line
// without its address, numbers out of order, a file or upstream named that
// no line holds); the caller then takes the full path.
func Restamp(lines []hash.Line, files, ups map[string]string) (out []hash.Line, waiting map[int]string, ok bool) {
	out = slices.Clone(lines)
	waiting = map[int]string{}
	seen := referencedUpstreams(lines)
	var unseen []int // indexes of the dep lines no other line refers to
	changed := false
	usedFiles, usedUps := map[string]bool{}, map[string]bool{}
	slots := 0
	for i, l := range lines {
		switch l.Label {
		case "input", "file":
			if d, ok := files[l.Subject]; ok {
				usedFiles[l.Subject] = true
				out[i].Value = d
			}
		case "dep":
			slots++
			if n, err := strconv.Atoi(l.Subject); err != nil || n != slots || l.Note == "" {
				return nil, nil, false
			}
			if !seen[slots] {
				unseen = append(unseen, i)
			}
			d, ok := ups[l.Note]
			if !ok {
				continue
			}
			usedUps[l.Note] = true
			if d == "" {
				waiting[i] = l.Note
				continue
			}
			out[i].Value = d
			changed = changed || d != l.Value
		}
	}
	if len(usedFiles) != len(files) || len(usedUps) != len(ups) || len(seen)+len(unseen) != slots {
		return nil, nil, false
	}
	for n := range seen {
		if n < 1 || n > len(seen) {
			return nil, nil, false // references must be 1..m, the unseen after
		}
	}
	if changed && len(unseen) > 1 {
		// Upstreams no other line names are numbered by digest, then
		// address: a new digest may reorder them.
		renumberUnseen(out, unseen, waiting)
	}
	return out, waiting, true
}

// referencedUpstreams returns the numbers N of the ${upstream:N} references
// in a key's attribute, input and file lines.
func referencedUpstreams(lines []hash.Line) map[int]bool {
	seen := map[int]bool{}
	see := func(v string) {
		for rest := v; ; {
			i := strings.Index(rest, "${upstream:")
			if i < 0 {
				return
			}
			rest = rest[i+len("${upstream:"):]
			j := strings.IndexByte(rest, '}')
			if j < 0 {
				return
			}
			if n, err := strconv.Atoi(rest[:j]); err == nil {
				seen[n] = true
			}
			rest = rest[j+1:]
		}
	}
	for _, l := range lines {
		if l.Label != "dep" {
			see(l.Subject)
			see(l.Value)
		}
	}
	return seen
}

// renumberUnseen sorts the dep lines at the indexes given (consecutive,
// numbered after the referenced ones) by digest, then address, and numbers
// them again, moving their waiting marks with them.
func renumberUnseen(lines []hash.Line, at []int, waiting map[int]string) {
	type dep struct {
		line hash.Line
		wait string
	}
	deps := make([]dep, len(at))
	first, _ := strconv.Atoi(lines[at[0]].Subject)
	for k, i := range at {
		deps[k] = dep{lines[i], waiting[i]}
		delete(waiting, i)
	}
	slices.SortStableFunc(deps, func(a, b dep) int {
		if c := strings.Compare(a.line.Value, b.line.Value); c != 0 {
			return c
		}
		return strings.Compare(a.line.Note, b.line.Note)
	})
	for k, i := range at {
		lines[i] = deps[k].line
		lines[i].Subject = strconv.Itoa(first + k)
		if deps[k].wait != "" {
			waiting[i] = deps[k].wait
		}
	}
}

// DecideRecorded decides a built node whose key lines, restamped for new
// input digests and upstream states, are lines; waiting marks the lines of
// the upstreams in pending, which run first (Restamp's waiting).
func (d *Decider) DecideRecorded(ctx context.Context, n *config.Node, k kind.Kind, rec *state.Record, lines []hash.Line, waiting map[int]string, pending []addr.Node, vals config.Values) *Decision {
	dec := &Decision{Node: n, Kind: k, Record: rec, KeyLines: lines}
	dec.Blocked = d.blockedBy(n, vals)
	if len(pending) > 0 {
		dec.Waiting = waiting
		d.decideWaiting(dec, pending)
		return dec
	}
	dec.Key = hash.LinesSum(lines).String()
	d.decideKnown(ctx, dec)
	if rec.Good() && rec.Key == dec.Key {
		dec.LockMismatch = d.Mismatch(n, dec.Key, rec.Digest)
	}
	return dec
}

// Unchanged is the decision of a built node whose inputs, upstreams and
// outputs were all checked unchanged: up to date.
func (d *Decider) Unchanged(n *config.Node, k kind.Kind, rec *state.Record, vals config.Values) *Decision {
	return &Decision{Node: n, Kind: k, Record: rec, Action: NoOp, Key: rec.Key, KeyLines: rec.KeyLines,
		Blocked: d.blockedBy(n, vals), LockMismatch: d.Mismatch(n, rec.Key, rec.Digest)}
}

// blockedBy is why n cannot run here, as Decide finds it for a node that
// probes nothing: an upstream that cannot, or the resource pools.
func (d *Decider) blockedBy(n *config.Node, vals config.Values) string {
	if b := d.upstreamBlocked(n, vals); b != "" {
		return b
	}
	if n.Meta.Executor != "" {
		return "" // an executor takes its resources from its cluster
	}
	return d.Pools.Blocked(n.Meta.Resources)
}
