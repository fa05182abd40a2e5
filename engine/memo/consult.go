package memo

import (
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/state"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// Consult is the memo as the full plan consults it (plan.Decider.Memo):
// the pipeline is loaded, for the nodes the memo cannot vouch for (those
// whose kind probes the machine or verifies its result, always_run, those
// whose inputs changed), and every other node is up to date as recorded,
// without being evaluated, while its upstreams' values are the ones it
// was decided with. So a pipeline with a service or a git checkout
// evaluates only those, and what their values reach.
type Consult struct {
	s      *session
	p      *config.Pipeline
	checks []checked
	index  map[string]int // node address → index in the memo
	say    func(string)

	mu      sync.Mutex
	settled map[string]bool   // nodes the memo vouched for, by address
	values  map[string]string // digests of the values of nodes decided again
}

// Open checks the memo of the loaded pipeline p, at o.Path, for the full
// plan to consult; false when there is none or its pipeline-wide
// conditions do not hold, and the plan decides every node. When the
// pipeline's files or variables changed but not what every node may read
// (Memo.Shared), each node is as recorded only while its own configuration
// is (config.NodeIdentity).
func Open(o Options, p *config.Pipeline) (*Consult, bool) {
	s, ok := open(o, p, newWhyNot("the memo of the full plan", o.Say))
	if !ok {
		return nil, false
	}
	if s.byNode && o.Say != nil {
		o.Say("the memo: the pipeline changed since it was written: each node is held to its own configuration")
	}
	links, linksOK := hash.StampOf(s.store.LinksDir())
	checks, _ := s.checkAll(linksOK && s.memo.Links != nil && *s.memo.Links == links, false)
	c := &Consult{s: s, p: p, checks: checks, index: make(map[string]int, len(s.memo.Nodes)), say: o.Say,
		settled: map[string]bool{}, values: map[string]string{}}
	for i, n := range s.memo.Nodes {
		c.index[n.Addr] = i
	}
	return c, true
}

// Settled implements plan.Memo.
func (c *Consult) Settled(d *plan.Decider, n *config.Node, vals config.Values) (*plan.Decision, bool) {
	a := n.Addr.String()
	i, ok := c.index[a]
	if !ok {
		return nil, c.miss(a, "not in the memo")
	}
	m := &c.s.memo.Nodes[i]
	if c.s.byNode && (m.Config == "" || m.Config != c.p.NodeIdentity(n)) {
		return nil, c.miss(a, "its configuration changed: its block, a local or variable it names, its instance or its upstreams")
	}
	if why, ok := c.checks[i].upToDate(c.s.root); !ok {
		return nil, c.miss(a, why)
	}
	rec := d.State.Records[a]
	switch {
	case m.Kind != n.Block.Kind.Name():
		return nil, c.miss(a, "of another kind in the memo")
	case !rec.Good() || rec.Entry != m.Entry || rec.Digest != m.Digest:
		return nil, c.miss(a, "its record is not the one the memo was written from")
	case m.Value == "":
		return nil, c.miss(a, "its value was not recorded")
	}
	for _, up := range n.Deps {
		if why := c.upstreamHolds(up, vals); why != "" {
			return nil, c.miss(a, why)
		}
	}
	if why := c.madeFromHolds(n, rec); why != "" {
		return nil, c.miss(a, why)
	}
	exports, err := decodeExports(m.Exports)
	if err != nil {
		return nil, c.miss(a, err.Error())
	}
	dec := d.Unchanged(n, n.Block.Kind, rec, vals)
	dec.Settled, dec.Exports = true, exports
	if valueDigest(d.ValueAfter(dec)) != m.Value {
		return nil, c.miss(a, "its value is not the one recorded (its pools, or what blocks it, changed)")
	}
	c.mu.Lock()
	c.settled[a] = true
	c.mu.Unlock()
	return dec, true
}

// upstreamHolds is why the upstream at a does not have the value the memo
// recorded, "" when it has.
func (c *Consult) upstreamHolds(up addr.Node, vals config.Values) string {
	a := up.String()
	i, ok := c.index[a]
	if !ok {
		return "its upstream " + a + " is not in the memo"
	}
	c.mu.Lock()
	settled, digest, known := c.settled[a], "", false
	if !settled {
		digest, known = c.values[a]
	}
	c.mu.Unlock()
	if settled {
		return ""
	}
	if !known {
		v, ok := vals.NodeValue(up)
		if !ok {
			return "its upstream " + a + " has no value yet"
		}
		digest = valueDigest(v)
		c.mu.Lock()
		c.values[a] = digest
		c.mu.Unlock()
	}
	if digest != c.s.memo.Nodes[i].Value {
		return "the value of its upstream " + a + " changed"
	}
	return ""
}

// madeFromHolds is why the files a dynamic instance is made from no
// longer have the digests its key recorded, "" when they have. They are
// hashed at the node's turn, not when the memo was opened: an apply may
// have run the block the instance was expanded from since.
func (c *Consult) madeFromHolds(n *config.Node, rec *state.Record) string {
	if n.Dynamic == nil {
		return ""
	}
	from := 0
	for _, l := range rec.KeyLines {
		if l.Label != "from" {
			continue
		}
		from++
		path := fromPath(c.p, l.Subject)
		if d, err := digestAny(path, c.s.statCache()); err != nil || d != l.Value {
			return "the file it is made from, " + relToRoot(c.s.root, path) + ", changed"
		}
	}
	if from != len(n.Dynamic.Files) {
		return "it is made from other files"
	}
	return ""
}

// miss says why the node at a is decided again, and returns false.
func (c *Consult) miss(a, why string) bool {
	if c.say != nil {
		c.say(fmt.Sprintf("the memo: %s decided again: %s", a, why))
	}
	return false
}

// Said says how many of the plan's nodes the memo vouched for.
func (c *Consult) Said(nodes int) {
	if c.say != nil {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.say(fmt.Sprintf("the memo: %d of %d nodes up to date as recorded, without evaluating them", len(c.settled), nodes))
	}
}

// Save keeps what the checks hashed for the next command.
func (c *Consult) Save() { c.s.saveStat() }

// encodeExports is a kind's exports as the memo keeps them: each one's
// type, and its value as JSON, or "" for a value not known until the node
// runs. false when one is marked, or only partly known, and cannot be kept.
func encodeExports(ex map[string]cty.Value) ([]Export, bool) {
	var out []Export
	for _, name := range slices.Sorted(maps.Keys(ex)) {
		v := ex[name]
		ty, err := ctyjson.MarshalType(v.Type())
		if err != nil || v.ContainsMarked() {
			return nil, false
		}
		e := Export{Name: name, Type: string(ty)}
		switch {
		case v.RawEquals(cty.UnknownVal(v.Type())):
		case !v.IsWhollyKnown():
			return nil, false
		default:
			b, err := ctyjson.Marshal(v, v.Type())
			if err != nil {
				return nil, false
			}
			e.Value = string(b)
		}
		out = append(out, e)
	}
	return out, true
}

func decodeExports(ex []Export) (map[string]cty.Value, error) {
	if len(ex) == 0 {
		return nil, nil
	}
	out := make(map[string]cty.Value, len(ex))
	for _, e := range ex {
		ty, err := ctyjson.UnmarshalType([]byte(e.Type))
		if err != nil {
			return nil, fmt.Errorf("its export %s: %v", e.Name, err)
		}
		if e.Value == "" {
			out[e.Name] = cty.UnknownVal(ty)
			continue
		}
		v, err := ctyjson.Unmarshal([]byte(e.Value), ty)
		if err != nil {
			return nil, fmt.Errorf("its export %s: %v", e.Name, err)
		}
		out[e.Name] = v
	}
	return out, nil
}

// node is the memo's record of the node at a.
func (c *Consult) node(a string) (Node, bool) {
	if c == nil {
		return Node{}, false
	}
	i, ok := c.index[a]
	if !ok {
		return Node{}, false
	}
	return c.s.memo.Nodes[i], true
}
