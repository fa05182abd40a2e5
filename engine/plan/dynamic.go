package plan

import (
	"context"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/human"
)

// decideDynamic decides a dynamic block (config.Dynamic). When every node
// its for_each or count reads is up to date, the results it reads are the
// ones on disk: the block is expanded now and its instances are decided one
// by one, like any node (so a new shard is a create, a changed one a
// rebuild, a reverted one a restore, and a shard that went away is
// forgotten). Otherwise it is one placeholder decision, "decided after"
// the nodes that will run first: apply expands it once they have.
func (d *Decider) decideDynamic(ctx context.Context, ph *config.Node, vals *Values, actions map[addr.Node]Action) ([]*Decision, hcl.Diagnostics) {
	p := d.Pipeline
	var first []addr.Node // the nodes that must run before the instances are known
	for _, blk := range ph.Dynamic.After {
		if p.Dynamic(blk) {
			if insts, ok := p.Expanded(blk); ok {
				for _, n := range insts {
					if actions[n.Addr] != NoOp {
						first = append(first, blk)
						break
					}
				}
				continue
			}
			first = append(first, blk)
			continue
		}
		for _, n := range p.Nodes {
			if n.Addr.Block() == blk && actions[n.Addr] != NoOp {
				first = append(first, blk)
				break
			}
		}
	}
	if len(first) > 0 {
		return []*Decision{d.deferred(ph, first)}, nil
	}
	insts, diags := p.Expand(ph, vals)
	if diags.HasErrors() {
		return nil, diags
	}
	out := make([]*Decision, 0, len(insts))
	for _, n := range insts {
		dec := d.Decide(ctx, n, vals)
		diags = append(diags, dec.Diags...)
		vals.Set(n.Addr, d.ValueAfter(dec))
		actions[n.Addr] = dec.Action
		d.decided(dec)
		out = append(out, dec)
	}
	return out, diags
}

// deferred is the one decision of a dynamic block whose instances are known
// only once the nodes in after have run.
func (d *Decider) deferred(ph *config.Node, after []addr.Node) *Decision {
	dec := &Decision{Node: ph, Kind: ph.Block.Kind, Action: Maybe, After: after}
	names := make([]string, len(after))
	for i, a := range after {
		names[i] = a.String()
	}
	last := 0
	prefix := ph.Addr.Block().String() + "["
	for a, r := range d.State.Records {
		if strings.HasPrefix(a, prefix) && r.Good() {
			last++
		}
	}
	detail := ""
	if last > 0 {
		detail = human.Count(last, "instance") + " last time"
	}
	dec.Reasons = []Reason{{Kind: ReasonDynamic, Subject: strings.Join(names, ", "), Detail: detail}}
	return dec
}

// keepsUnexpanded reports whether a recorded address belongs to a dynamic
// block not expanded in this plan: its instances are decided during apply,
// so they are not forgotten now.
func (d *Decider) keepsUnexpanded(a addr.Node) bool {
	if !d.Pipeline.Dynamic(a) {
		return false
	}
	_, expanded := d.Pipeline.Expanded(a.Block())
	return !expanded
}
