package plan

import (
	"context"
	"runtime"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/par"
	"github.com/kilnbuild/kiln/engine/pool"
	"github.com/kilnbuild/kiln/engine/sandbox"
	"github.com/kilnbuild/kiln/engine/state"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// Plan is what an apply would do.
type Plan struct {
	Changes []*Decision // in dependency order, one per node in scope
	Forget  []string    // addresses in state that left the configuration
	Moved   []Moved     // records that moved blocks hand to a new address
	Pools   pool.Set    // the pools the nodes were decided against
	// Sandbox is what confines sealed runs on this machine (sandbox.Probe),
	// when the plan was made for it; nil otherwise.
	Sandbox *sandbox.Protection
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

// Make decides every node in scope, in dependency order. The nodes are
// decided in waves (waves): those of one wave depend only on nodes of
// earlier waves, and are decided in parallel. Every node sees the values of
// all its upstream nodes, as when the nodes are decided one by one, and the
// plan lists the decisions in the graph's order.
func (d *Decider) Make(ctx context.Context, dag *DAG, scope []bool) (*Plan, hcl.Diagnostics) {
	vals := newValues(len(dag.Nodes))
	pl := &Plan{Pools: d.Pools, Sandbox: d.Sandbox}
	order := dag.Graph.Order()
	decided := make([][]*Decision, len(dag.Nodes)) // by vertex
	nodeDiags := make([]hcl.Diagnostics, len(dag.Nodes))
	actions := make(map[addr.Node]Action, len(dag.Nodes))
	var left map[*config.Block]int
	if d.LetGo {
		left = blockVertices(dag)
	}
	for _, wave := range waves(dag, order, scope) {
		d.decideWave(ctx, dag, wave, vals, decided)
		for _, v := range wave {
			n := dag.Nodes[v]
			if n.Placeholder() {
				decided[v], nodeDiags[v] = d.decideDynamic(ctx, n, vals, actions)
				continue
			}
			dec := decided[v][0]
			nodeDiags[v] = dec.Diags
			actions[n.Addr] = dec.Action
		}
		d.letGoOfBlocks(dag, wave, left)
	}
	var diags hcl.Diagnostics
	for _, v := range order {
		if scope[v] {
			pl.Changes = append(pl.Changes, decided[v]...)
			diags = append(diags, nodeDiags[v]...)
		}
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

// waves groups the vertices in scope by depth, in the graph's order within
// each: a vertex's wave comes after those of all its dependencies.
func waves(dag *DAG, order []int, scope []bool) [][]int {
	depth := make([]int, len(dag.Nodes))
	var out [][]int
	for _, v := range order {
		if !scope[v] {
			continue
		}
		w := 0
		for _, dep := range dag.Nodes[v].Deps {
			if u, ok := dag.index[dep]; ok && scope[u] {
				w = max(w, depth[u]+1)
			}
		}
		depth[v] = w
		if w == len(out) {
			out = append(out, nil)
		}
		out[w] = append(out[w], v)
	}
	return out
}

// decideWave decides the nodes of one wave but its placeholders (which
// expand their block, decideDynamic) and sets their values, with up to
// GOMAXPROCS nodes decided at once. Keys are computed one by one when
// DebugKey prints them, so that they come out in order.
func (d *Decider) decideWave(ctx context.Context, dag *DAG, wave []int, vals *Values, decided [][]*Decision) {
	var todo []int
	for _, v := range wave {
		if !dag.Nodes[v].Placeholder() {
			todo = append(todo, v)
		}
	}
	after := make([]afterValue, len(todo))
	decide := func(i int) {
		n := dag.Nodes[todo[i]]
		dec := d.Decide(ctx, n, vals)
		decided[todo[i]] = []*Decision{dec}
		after[i] = d.after(dec)
		if dec.Action == NoOp {
			dec.Value = after[i].value()
		}
		d.decided(dec)
	}
	eachOfWave(len(todo), d.DebugKey != nil, decide)
	for i, v := range todo {
		vals.setAfter(dag.Nodes[v].Addr, after[i])
	}
}

// decided hands dec to Decided and, for LetGo, lets go of its evaluated
// configuration, its value (which vals holds in a smaller form), its key's
// lines and the files it hashed: a plan that is only shown reads none of
// them after Make (explain and apply make plans of their own), and the
// key lines of a node that can be decided at once are a kilobyte each.
func (d *Decider) decided(dec *Decision) {
	if d.Decided != nil {
		d.Decided(dec)
	}
	if d.LetGo {
		dec.Config, dec.KindNode, dec.Value = nil, nil, cty.NilVal
		dec.KeyLines, dec.Waiting, dec.Inputs, dec.Listing = nil, nil, nil, nil
	}
}

// blockVertices counts each block's vertices (a dynamic block's
// placeholder stands for all its instances).
func blockVertices(dag *DAG) map[*config.Block]int {
	left := make(map[*config.Block]int, len(dag.Nodes))
	for _, n := range dag.Nodes {
		left[n.Block]++
	}
	return left
}

// letGoOfBlocks lets go of the syntax tree of each block whose last vertex
// the wave decided (config.Pipeline.ForgetBlock), counting down left; a
// nil left keeps every block. A node is evaluated only as it is decided,
// and no other node's evaluation reads its block, so only a block with a
// vertex out of scope (-target) is kept.
func (d *Decider) letGoOfBlocks(dag *DAG, wave []int, left map[*config.Block]int) {
	if left == nil {
		return
	}
	for _, v := range wave {
		b := dag.Nodes[v].Block
		if left[b]--; left[b] == 0 {
			d.Pipeline.ForgetBlock(b)
		}
	}
}

// InWaves calls each for every vertex of dag, wave by wave (see waves),
// with up to GOMAXPROCS vertices of one wave at once, then done for the
// wave's vertices one by one in the graph's order, before the next wave
// starts: each may read what done recorded of the vertex's dependencies.
func InWaves(dag *DAG, each, done func(v int)) {
	scope := make([]bool, len(dag.Nodes))
	for v := range scope {
		scope[v] = true
	}
	for _, wave := range waves(dag, dag.Graph.Order(), scope) {
		eachOfWave(len(wave), false, func(i int) { each(wave[i]) })
		for _, v := range wave {
			done(v)
		}
	}
}

// eachOfWave calls f for 0..n-1, up to GOMAXPROCS at once unless serial or
// n is too few to be worth the goroutines.
func eachOfWave(n int, serial bool, f func(i int)) {
	workers := runtime.GOMAXPROCS(0)
	if serial || n < minParallelWave {
		workers = 1
	}
	par.Each(n, workers, f)
}

// minParallelWave is the fewest nodes of a wave decided in parallel: fewer
// are not worth the goroutines.
const minParallelWave = 8

// ValueAfter is the value other nodes see of a decided node: its digest is
// known when nothing will run (or a stored result is restored), unknown
// otherwise.
func (d *Decider) ValueAfter(dec *Decision) cty.Value {
	digest := cty.UnknownVal(cty.String)
	rec := resultAfter(dec)
	if rec != nil {
		digest = cty.StringVal(rec.Digest)
	}
	attrs := map[string]cty.Value{
		"out":     cty.StringVal(d.Pipeline.OutPath(dec.Node.Addr)),
		"digest":  digest,
		"blocked": cty.StringVal(dec.Blocked),
	}
	for k, v := range exportsOf(dec) {
		attrs[k] = v
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

// Values is a concurrency-safe map of node values. Most values are a
// node's out, digest and blocked, all strings: those are kept as the three
// strings (a cty object costs four times as much, for every node of an
// apply, for its whole length) and made into the object again when read.
type Values struct {
	mu    sync.RWMutex
	m     map[addr.Node]cty.Value
	plain map[addr.Node]plainValue
}

// plainValue is an object {out, digest, blocked} of strings, the digest
// unknown when !known.
type plainValue struct {
	out, digest, blocked string
	known                bool
}

func (p plainValue) value() cty.Value {
	digest := cty.UnknownVal(cty.String)
	if p.known {
		digest = cty.StringVal(p.digest)
	}
	return cty.ObjectVal(map[string]cty.Value{"out": cty.StringVal(p.out), "digest": digest, "blocked": cty.StringVal(p.blocked)})
}

// plainOf is x as a plainValue, when x is exactly one.
func plainOf(x cty.Value) (plainValue, bool) {
	t := x.Type()
	if !t.IsObjectType() || len(t.AttributeTypes()) != 3 || !x.IsKnown() || x.IsNull() || x.ContainsMarked() {
		return plainValue{}, false
	}
	for _, name := range []string{"out", "digest", "blocked"} {
		if !t.HasAttribute(name) || !t.AttributeType(name).Equals(cty.String) {
			return plainValue{}, false
		}
	}
	out, digest, blocked := x.GetAttr("out"), x.GetAttr("digest"), x.GetAttr("blocked")
	if !out.IsKnown() || out.IsNull() || !blocked.IsKnown() || blocked.IsNull() || digest.IsNull() {
		return plainValue{}, false
	}
	p := plainValue{out: out.AsString(), blocked: blocked.AsString(), known: digest.IsKnown()}
	if p.known {
		p.digest = digest.AsString()
	}
	// Anything the three strings do not say (a refined unknown digest) is
	// kept as it is. The rest is checked above: the type, no marks, out
	// and blocked known strings.
	if !p.known && !digest.RawEquals(cty.UnknownVal(cty.String)) {
		return plainValue{}, false
	}
	return p, true
}

// NewValues returns an empty map.
func NewValues() *Values { return newValues(0) }

// newValues is an empty map with room for the plain values of n nodes.
func newValues(n int) *Values {
	return &Values{m: map[addr.Node]cty.Value{}, plain: make(map[addr.Node]plainValue, n)}
}

// NodeValue implements config.Values.
func (v *Values) NodeValue(a addr.Node) (cty.Value, bool) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	if p, ok := v.plain[a]; ok {
		return p.value(), true
	}
	x, ok := v.m[a]
	return x, ok
}

// NodeString implements config.NodeStrings: out, digest or blocked of a
// node whose value is kept as its strings.
func (v *Values) NodeString(a addr.Node, attr string) (cty.Value, bool) {
	v.mu.RLock()
	p, ok := v.plain[a]
	v.mu.RUnlock()
	if !ok {
		return cty.NilVal, false
	}
	switch attr {
	case "out":
		return cty.StringVal(p.out), true
	case "blocked":
		return cty.StringVal(p.blocked), true
	case "digest":
		if p.known {
			return cty.StringVal(p.digest), true
		}
		return cty.UnknownVal(cty.String), true
	}
	return cty.NilVal, false
}

// SetAfter records the value dec's node has after the plan (ValueAfter),
// without making the cty object where the value is plain: no exports.
func (v *Values) SetAfter(d *Decider, dec *Decision) {
	v.setAfter(dec.Node.Addr, d.after(dec))
}

// setAfter records x, node a's value after the plan.
func (v *Values) setAfter(a addr.Node, x afterValue) {
	if !x.isPlain {
		v.Set(a, x.full)
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.plain[a] = x.plain
	delete(v.m, a)
}

// afterValue is ValueAfter kept as its three strings where it is plain.
type afterValue struct {
	plain   plainValue
	full    cty.Value // when !isPlain
	isPlain bool
}

func (x afterValue) value() cty.Value {
	if x.isPlain {
		return x.plain.value()
	}
	return x.full
}

// after is ValueAfter(dec), made into a cty object only where the
// node exports more than out, digest and blocked.
func (d *Decider) after(dec *Decision) afterValue {
	rec := resultAfter(dec)
	if len(exportsOf(dec)) > 0 || rec != nil && hasExports(rec.Attrs) {
		return afterValue{full: d.ValueAfter(dec)}
	}
	p := plainValue{out: d.Pipeline.OutPath(dec.Node.Addr), blocked: dec.Blocked}
	if rec != nil {
		p.digest, p.known = rec.Digest, true
	}
	return afterValue{plain: p, isPlain: true}
}

// exportsOf is what dec's node exports beside out, digest and blocked.
func exportsOf(dec *Decision) map[string]cty.Value {
	if dec.KindNode != nil {
		return dec.Kind.Exports(dec.KindNode)
	}
	return dec.Exports
}

// resultAfter is the record of the result dec's node has after the plan:
// its own when nothing runs, the stored one a restore puts back; nil when
// it runs.
func resultAfter(dec *Decision) *state.Record {
	switch dec.Action {
	case NoOp:
		return dec.Record
	case Restore:
		return dec.Restore
	}
	return nil
}

func hasExports(attrs map[string]string) bool {
	for k := range attrs {
		if strings.HasPrefix(k, AttrExportPrefix) {
			return true
		}
	}
	return false
}

// blockedOf is why node a cannot run here, as its value in vals says; ""
// when it can.
func blockedOf(vals config.Values, a addr.Node) string {
	if s, ok := vals.(config.NodeStrings); ok {
		if b, plain := s.NodeString(a, "blocked"); plain {
			return b.AsString()
		}
	}
	if v, ok := vals.NodeValue(a); ok && v.Type().IsObjectType() && v.Type().HasAttribute("blocked") {
		if b := v.GetAttr("blocked"); b.IsKnown() && !b.IsNull() {
			return b.AsString()
		}
	}
	return ""
}

// Set records a node's value.
func (v *Values) Set(a addr.Node, x cty.Value) {
	p, plain := plainOf(x)
	v.mu.Lock()
	defer v.mu.Unlock()
	if plain {
		v.plain[a] = p
		delete(v.m, a)
		return
	}
	v.m[a] = x
	delete(v.plain, a)
}

var _ config.Values = (*Values)(nil)

// onceValues reads each node's value from vals once: Values makes a
// compact value into an object on every read, and deciding a node reads
// each upstream's value several times (its configuration, its key, what
// blocks it). Not safe for concurrent use: one per decision.
type onceValues struct {
	vals config.Values
	seen []onceValue
	m    map[addr.Node]onceValue // instead of seen, once it grows
}

type onceValue struct {
	a  addr.Node
	v  cty.Value
	ok bool
}

// NodeString implements config.NodeStrings where the values it reads do.
func (o *onceValues) NodeString(a addr.Node, attr string) (cty.Value, bool) {
	if s, ok := o.vals.(config.NodeStrings); ok {
		return s.NodeString(a, attr)
	}
	return cty.NilVal, false
}

func (o *onceValues) NodeValue(a addr.Node) (cty.Value, bool) {
	if o.m != nil {
		if s, found := o.m[a]; found {
			return s.v, s.ok
		}
	} else {
		for _, s := range o.seen {
			if s.a == a {
				return s.v, s.ok
			}
		}
	}
	v, ok := o.vals.NodeValue(a)
	s := onceValue{a: a, v: v, ok: ok}
	switch {
	case o.m != nil:
		o.m[a] = s
	case len(o.seen) < 16:
		o.seen = append(o.seen, s)
	default:
		o.m = make(map[addr.Node]onceValue, 2*len(o.seen))
		for _, x := range append(o.seen, s) {
			o.m[x.a] = x
		}
		o.seen = nil
	}
	return v, ok
}

// Of is the decision about the node at a, or nil when the plan has none.
func (p *Plan) Of(a addr.Node) *Decision {
	for _, d := range p.Changes {
		if d.Node.Addr == a {
			return d
		}
	}
	return nil
}
