package plan

import (
	"context"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/state"
)

// Deciding a built node again from its key lines, without its
// configuration: the engine's plan after an edit that left the pipeline's
// files, variables and environment as they were (engine/memo, Replan). The
// lines are the node's recorded ones rewritten by Rekey for what changed;
// the decision is then made by the same code as Decide's, so both agree as
// long as the node's evaluated configuration is the one it was built with.
// n needs only its address, dependencies and meta-arguments.

// DecideLines decides a built node whose key lines, rewritten for new input
// digests and upstream states, are lines; waiting marks the lines of the
// upstreams in pending, which run first (Rekey's waiting).
func (d *Decider) DecideLines(ctx context.Context, n *config.Node, k kind.Kind, rec *state.Record, lines []string, waiting map[int]string, pending []addr.Node, vals config.Values) *Decision {
	dec := &Decision{Node: n, Kind: k, Record: rec, KeyLines: lines}
	dec.Blocked = d.blockedBy(n, vals)
	if len(pending) > 0 {
		dec.Waiting = waiting
		d.decideWaiting(dec, pending)
		return dec
	}
	dec.Key = KeySum(lines)
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
