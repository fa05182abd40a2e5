package plan

import (
	"context"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/pool"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// Plan is what an apply would do.
type Plan struct {
	Changes []*Decision // in dependency order, one per node in scope
	Forget  []string    // addresses in state that left the configuration
	Moved   []Moved     // records that moved blocks hand to a new address
	Pools   pool.Set    // the pools the nodes were decided against
}

// Moved is one node's records moving from one address to another.
type Moved struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Counts returns how many nodes take each action.
func (p *Plan) Counts() map[Action]int {
	c := map[Action]int{}
	for _, d := range p.Changes {
		c[d.Action]++
	}
	c[Forget] += len(p.Forget)
	return c
}

// HasChanges reports whether applying would do anything.
func (p *Plan) HasChanges() bool {
	for _, d := range p.Changes {
		if d.Action != NoOp {
			return true
		}
	}
	return len(p.Forget) > 0 || len(p.Moved) > 0
}

// Make decides every node in scope, in dependency order.
func (d *Decider) Make(ctx context.Context, dag *DAG, scope []bool) (*Plan, hcl.Diagnostics) {
	vals := NewValues()
	pl := &Plan{Pools: d.Pools}
	var diags hcl.Diagnostics
	actions := map[addr.Node]Action{}
	for _, v := range dag.Graph.Order() {
		if !scope[v] {
			continue
		}
		n := dag.Nodes[v]
		if n.Placeholder() {
			decs, d := d.decideDynamic(ctx, n, vals, actions)
			diags = append(diags, d...)
			pl.Changes = append(pl.Changes, decs...)
			continue
		}
		dec := d.Decide(ctx, n, vals)
		diags = append(diags, dec.Diags...)
		vals.Set(n.Addr, d.ValueAfter(dec))
		actions[n.Addr] = dec.Action
		pl.Changes = append(pl.Changes, dec)
	}
	d.neededTemps(pl)
	if d.Targeted {
		// A targeted apply forgets nothing, so a targeted plan offers to
		// forget nothing either.
		return pl, diags
	}
	for _, r := range d.State.Sorted() {
		if d.Leaves(r) {
			pl.Forget = append(pl.Forget, r.Addr)
		}
	}
	return pl, diags
}

// ValueAfter is the value other nodes see of a decided node: its digest is
// known when nothing will run (or a stored result is restored), unknown
// otherwise.
func (d *Decider) ValueAfter(dec *Decision) cty.Value {
	digest := cty.UnknownVal(cty.String)
	var rec = dec.Record
	switch dec.Action {
	case NoOp:
		digest = cty.StringVal(rec.Digest)
	case Restore:
		rec = dec.Restore
		digest = cty.StringVal(rec.Digest)
	default:
		rec = nil
	}
	attrs := map[string]cty.Value{
		"out":     cty.StringVal(d.Pipeline.OutPath(dec.Node.Addr)),
		"digest":  digest,
		"blocked": cty.StringVal(dec.Blocked),
	}
	if dec.KindNode != nil {
		for k, v := range dec.Kind.Exports(dec.KindNode) {
			attrs[k] = v
		}
	}
	if rec != nil {
		for k, v := range RecordedExports(rec.Attrs) {
			attrs[k] = v
		}
	}
	return cty.ObjectVal(attrs)
}

// AttrExportPrefix marks record attributes that hold a kind's exports, as
// typed JSON.
const AttrExportPrefix = "kiln.export."

// RecordedExports decodes the exports kept in a record's attributes.
func RecordedExports(attrs map[string]string) map[string]cty.Value {
	out := map[string]cty.Value{}
	for k, v := range attrs {
		if len(k) <= len(AttrExportPrefix) || k[:len(AttrExportPrefix)] != AttrExportPrefix {
			continue
		}
		var s ctyjson.SimpleJSONValue
		if err := s.UnmarshalJSON([]byte(v)); err == nil {
			out[k[len(AttrExportPrefix):]] = s.Value
		}
	}
	return out
}

// EncodeExports stores a build's exports into record attributes.
func EncodeExports(attrs map[string]string, ex map[string]cty.Value) {
	for k, v := range ex {
		b, err := ctyjson.SimpleJSONValue{Value: v}.MarshalJSON()
		if err == nil {
			attrs[AttrExportPrefix+k] = string(b)
		}
	}
}

// Values is a concurrency-safe map of node values.
type Values struct {
	mu sync.RWMutex
	m  map[addr.Node]cty.Value
}

// NewValues returns an empty map.
func NewValues() *Values { return &Values{m: map[addr.Node]cty.Value{}} }

// NodeValue implements config.Values.
func (v *Values) NodeValue(a addr.Node) (cty.Value, bool) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	x, ok := v.m[a]
	return x, ok
}

// Set records a node's value.
func (v *Values) Set(a addr.Node, x cty.Value) {
	v.mu.Lock()
	v.m[a] = x
	v.mu.Unlock()
}

var _ config.Values = (*Values)(nil)
