package memo

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/sandbox"
	"github.com/kilnbuild/kiln/engine/state"
)

// Result is a plan made from the memo, without loading the pipeline.
type Result struct {
	Plan    *plan.Plan
	Root    string // the pipeline's folder
	Lineage string // of the state the plan was made against
	Serial  uint64
}

// Replan makes the plan of the pipeline at o.Path from the memo, when its
// configuration is as the memo recorded it; false means "make the full
// plan". Every node is checked as Check checks it; a node whose input
// files changed, or whose upstream will run or be restored, has its
// recorded key lines rewritten (plan.Rekey) and is decided by the Decider
// against the real state, its history and the store, so a key kept in the
// store is restored as the full plan restores it; the others are up to
// date. A node that drifted while its inputs did not, or a change to a
// node that reads more of its upstreams than their out paths, leaves the
// full plan, which explains it.
func Replan(ctx context.Context, o Options) (*Result, bool) {
	s, ok := open(o, nil, newWhyNot("the plan after an edit", o.Say))
	if !ok {
		return nil, false
	}
	return s.replan(ctx, o)
}

// replan is Replan once the memo is open.
func (s *session) replan(ctx context.Context, o Options) (*Result, bool) {
	why, m := s.why, s.memo
	if full := s.fullNode(); full != "" {
		return nil, why.miss("%s", full)
	}
	if m.Replans != "" {
		return nil, why.miss("%s", m.Replans)
	}
	// The state loads while the nodes are checked: deciding needs it.
	type loaded struct {
		st  *state.State
		err error
	}
	stateCh := make(chan loaded, 1)
	go func() {
		st, err := state.Load(s.stateDir)
		stateCh <- loaded{st, err}
	}()
	links, linksOK := hash.StampOf(s.store.LinksDir())
	checks, _ := s.checkAll(linksOK && m.Links != nil && *m.Links == links, false)
	ld := <-stateCh
	for i, c := range checks {
		if c.full != "" {
			return nil, why.miss("%s: %s", m.Nodes[i].Addr, c.full)
		}
	}
	// Nodes whose inputs changed, and their dependents, are decided again;
	// the others must still have their results as recorded.
	dirty := make([]bool, len(m.Nodes))
	for _, v := range m.Order {
		i := int(v)
		dirty[i] = len(checks[i].changed) > 0
		for _, j := range m.Nodes[i].Deps {
			dirty[i] = dirty[i] || dirty[j]
		}
		if !dirty[i] && checks[i].drift {
			return nil, why.miss("%s: its result changed outside kiln", m.Nodes[i].Link)
		}
	}
	st := ld.st
	if ld.err != nil || st.Lineage != m.Lineage || st.Serial != m.Serial {
		return nil, why.miss("the state does not load as the memo saw it")
	}
	pl, ok := s.decide(ctx, st, checks, dirty, o)
	if !ok {
		return nil, false
	}
	decided := 0
	for _, d := range dirty {
		if d {
			decided++
		}
	}
	why.took(fmt.Sprintf("%d of %d nodes decided again", decided, len(dirty)))
	s.saveStat()
	return &Result{Plan: pl, Root: s.root, Lineage: st.Lineage, Serial: st.Serial}, true
}

// decide walks the nodes in plan order: unchanged ones are up to date, the
// others are decided again from their rewritten lines.
func (s *session) decide(ctx context.Context, st *state.State, checks []checked, dirty []bool, o Options) (*plan.Plan, bool) {
	m := s.memo
	kinds := map[string]kind.Kind{}
	for _, kd := range o.Kinds {
		kinds[kd.Name()] = kd
	}
	d := &plan.Decider{
		Pipeline: &config.Pipeline{Root: s.root, StateDir: s.stateDir},
		State:    st, Store: s.store, Stat: s.statCache(), Pools: o.Pools,
		Records: plan.OpenRecords(st, s.store),
	}
	// The nodes as deciding them needs them: their addresses,
	// dependencies and meta-arguments.
	nodes := make([]*config.Node, len(m.Nodes))
	for i, n := range m.Nodes {
		a, err := addr.Parse(n.Addr)
		if err != nil {
			return nil, s.why.miss("%s: %v", n.Addr, err)
		}
		nodes[i] = &config.Node{Addr: a, CountIdx: -1, Meta: config.Meta{Resources: n.Resources, Resumable: n.Resumable}}
	}
	for i, n := range m.Nodes {
		for _, j := range n.Deps {
			nodes[i].Deps = append(nodes[i].Deps, nodes[j].Addr)
		}
	}
	vals := plan.NewValues()
	decs := make([]*plan.Decision, len(m.Nodes))
	protection := sandbox.Probe()
	pl := &plan.Plan{Pools: d.Pools, Sandbox: &protection, Changes: make([]*plan.Decision, 0, len(m.Nodes))}
	for _, v := range m.Order {
		i := int(v)
		n := &m.Nodes[i]
		kd, ok := kinds[n.Kind]
		if !ok || decs[i] != nil {
			return nil, s.why.miss("%s: kind %s unknown, or the memo's order is damaged", n.Addr, n.Kind)
		}
		rec := st.Records[n.Addr]
		if !rec.Good() || rec.Entry != n.Entry || rec.Digest != n.Digest {
			return nil, s.why.miss("%s: its record is not the one the memo was written from", n.Addr)
		}
		var dec *plan.Decision
		if !dirty[i] {
			dec = d.Unchanged(nodes[i], kd, rec, vals)
		} else if dec, ok = s.decideAgain(ctx, d, i, nodes[i], kd, rec, checks[i], decs, vals); !ok {
			return nil, false
		}
		decs[i] = dec
		vals.SetAfter(d, dec)
		pl.Changes = append(pl.Changes, dec)
	}
	return pl, true
}

// decideAgain decides a node whose inputs changed, or whose upstream did,
// from its recorded key lines rewritten for the new input digests and the
// upstreams' decisions.
func (s *session) decideAgain(ctx context.Context, d *plan.Decider, i int, n *config.Node, kd kind.Kind, rec *state.Record, c checked, decs []*plan.Decision, vals config.Values) (*plan.Decision, bool) {
	mn := &s.memo.Nodes[i]
	if !mn.Rekeyable {
		return nil, s.why.miss("%s: changed, and its configuration reads more of its upstreams than their out paths (or an input another node writes, or instance files)", mn.Addr)
	}
	ups := map[string]string{}
	var pending []addr.Node
	for _, j := range mn.Deps {
		up := decs[j]
		switch up.Action {
		case plan.NoOp:
		case plan.Restore:
			ups[up.Node.Addr.String()] = up.Restore.Digest
		case plan.Rebuild, plan.Maybe:
			ups[up.Node.Addr.String()] = ""
			pending = append(pending, up.Node.Addr)
		default:
			return nil, s.why.miss("%s: its upstream %s will %s", mn.Addr, up.Node.Addr, up.Action.Word())
		}
	}
	files := map[string]string{}
	for _, l := range rec.KeyLines {
		if l.Label != "input" && l.Label != "file" {
			continue
		}
		if p, ok := inputPath(s.root, l.Subject); ok {
			if dg, changed := c.changed[p]; changed {
				files[l.Subject] = dg
			}
		}
	}
	if hash.LinesSum(rec.KeyLines).String() != rec.Key {
		return nil, s.why.miss("%s: its recorded key lines do not give its key (a record of an older kiln?)", mn.Addr)
	}
	lines, waiting, ok := plan.Restamp(rec.KeyLines, files, ups)
	if !ok {
		return nil, s.why.miss("%s: its key lines could not be restamped", mn.Addr)
	}
	dec := d.DecideRecorded(ctx, n, kd, rec, lines, waiting, pending, vals)
	switch dec.Action {
	case plan.NoOp, plan.Rebuild, plan.Maybe, plan.Restore:
		return dec, true
	}
	return nil, s.why.miss("%s: decided %s, which needs the full plan", mn.Addr, dec.Action.Word())
}

// inputPath is the file an input or file key line's subject names; false
// for one inside the state folder (an upstream's output, covered by its
// digest).
func inputPath(root, subject string) (string, bool) {
	if strings.HasPrefix(subject, "$KILN_STATE") {
		return "", false
	}
	path := strings.Replace(subject, "$KILN_ROOT", root, 1)
	if !filepath.IsAbs(path) {
		path = filepath.Join(root, path)
	}
	return path, true
}
