package plan

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/human"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/pool"
	"github.com/kilnbuild/kiln/engine/sandbox"
	"github.com/kilnbuild/kiln/engine/state"
	"github.com/zclconf/go-cty/cty"
)

// SelfOutPlaceholder is self.out while a node's key is computed: the real
// folder is named by the key, so it cannot be part of it.
const SelfOutPlaceholder = "${self.out}"

// Decider decides what nodes need. It is safe for concurrent use by apply
// as long as the state it reads is not modified concurrently for the same
// node.
type Decider struct {
	Pipeline *config.Pipeline
	State    *state.State
	Store    *state.Store
	Stat     *hash.StatCache
	Records  *Records
	Replace  map[addr.Node]bool
	// DebugKey, when set, receives every key computed (KILN_DEBUG_KEY=1).
	DebugKey func(a addr.Node, key string, lines []hash.Line)
	// Pins are the locked pins per node address (kiln.lock.hcl), applied to
	// the configuration of kinds that implement kind.Pinner before the key
	// is computed. Read-only while deciding.
	Pins map[string]map[string]string
	// MovedFrom maps the address a moved block moves records to onto the
	// one they come from, while the move is only made in memory (a plan):
	// the stable link is still under the old address.
	MovedFrom map[addr.Node]addr.Node
	// Targeted is set for -target: the plan covers part of the pipeline and
	// forgets nothing.
	Targeted bool
	// Locked are the builds kiln.lock.hcl records, by address.
	Locked map[string]LockedBuild
	// Pools are the resource pools of this machine: a node that asks for
	// more than one holds cannot run here. Read-only while deciding.
	Pools pool.Set
	// Sandbox is what confines sealed runs here, for the plan to say
	// (sandbox.Probe); nil says nothing.
	Sandbox *sandbox.Protection
	// Memo, when set, vouches for nodes that are up to date as it
	// recorded them (engine/memo): Decide takes their decisions from it
	// instead of evaluating them, in a plan and at each node's turn in an
	// apply.
	Memo Memo
	// Decided, when set, is given each decision Make makes once the
	// node's value is set (by several goroutines at once), before LetGo
	// lets go of anything of it.
	Decided func(*Decision)
	// LetGo makes Make let go of what nothing reads once the plan is made,
	// for a plan that is shown and not applied (kiln plan): each
	// decision's evaluated configuration (Config, KindNode), Value, key
	// lines and hashed inputs once Decided has them, and each block's
	// syntax tree once its last instance is decided (letGoOfBlocks).
	LetGo bool
}

// Memo gives the decision of a node that is up to date as the memo of the
// last up-to-date plan recorded it, given its upstreams' values now; false
// when the node must be decided (see engine/memo, Consult).
type Memo interface {
	Settled(d *Decider, n *config.Node, vals config.Values) (*Decision, bool)
}

// LockedBuild is what kiln.lock.hcl records of a node's last build.
type LockedBuild struct{ Key, Digest string }

// LockMismatch is a node built with the key kiln.lock.hcl records but with
// another digest: the build did not reproduce the one the lock describes.
type LockMismatch struct {
	Locked string   `json:"locked"` // the lock's digest
	Built  string   `json:"built"`  // the digest built here
	Files  []string `json:"files,omitempty"`
}

// Mismatch compares a build of a node with the lock; nil when they agree,
// when the lock holds another key (or nothing), or when the node is not
// deterministic.
func (d *Decider) Mismatch(n *config.Node, key, digest string) *LockMismatch {
	l, ok := d.Locked[n.Addr.String()]
	if !ok || l.Key != key || l.Digest == digest || !n.Meta.Deterministic {
		return nil
	}
	return &LockMismatch{Locked: l.Digest, Built: digest}
}

// Decision is what one node needs, and everything learned deciding it.
type Decision struct {
	Node    *config.Node
	Action  Action
	Reasons []Reason
	Key     string // hex; empty while an upstream digest is unknown
	// KeyLines are the key's lines. While an upstream digest is unknown
	// they are the lines computable now, with each waiting upstream assumed
	// to keep the digest the node was last built with; Waiting maps the
	// index of every line that depends on such an upstream to its address.
	KeyLines []hash.Line
	Waiting  map[int]string
	Config   *config.Evaluated
	Kind     kind.Kind
	KindNode *kind.Node
	Probe    *kind.Probe
	Record   *state.Record // the node's record in state, if any
	Restore  *state.Record // for Restore: the record of the stored result
	// LockMismatch is set when the node's recorded result has the key of
	// kiln.lock.hcl but another digest.
	LockMismatch *LockMismatch
	Blocked      string
	// After, for a dynamic block not expanded yet (Node.Placeholder), lists
	// the nodes that must run before its instances are known.
	After []addr.Node
	// Program is the program a kind that runs a program it names runs
	// (ResolveProgram); nil for others.
	Program *Program
	// Vars are the variables the node's attributes read and their values
	// as a record keeps them (VariableText); the apply records them.
	Vars map[string]string
	// TempRemoved: a temp node whose result was removed after use, up to
	// date as long as nothing that depends on it must run.
	TempRemoved bool
	// Protected: the decision would replace a protected node's result;
	// apply refuses it unless -replace names the node.
	Protected bool
	// Settled: the memo vouched for the node (Decider.Memo), which was
	// not evaluated; Exports are then its kind's exports as the memo
	// recorded them, for ValueAfter.
	Settled bool
	Exports map[string]cty.Value
	Diags   hcl.Diagnostics
	// Listing is the listing of Record's run folder that checking its
	// digest read (hash.TreeOptions.Listed), for the memo; nil when none.
	Listing *hash.Listing
	// Value is what the plan gave the dependents (ValueAfter) of a node
	// it leaves as it is (NoOp), set by Make; cty.NilVal for any other
	// action or a decision made alone.
	Value cty.Value

	// Inputs are the files the key hashed, as [path relative to the
	// pipeline folder, digest]: the resolved inputs (the first InputCount),
	// then the kind's key files. Apply checks them again around the run.
	Inputs     [][2]string
	InputCount int
}

// Decide decides what n needs given the values of its upstream nodes. An
// upstream value whose digest is unknown means that node will run first.
// A node the Memo vouches for is up to date without being evaluated.
func (d *Decider) Decide(ctx context.Context, n *config.Node, vals config.Values) *Decision {
	if d.Memo != nil {
		if dec, ok := d.Memo.Settled(d, n, vals); ok {
			return dec
		}
	}
	return d.evaluate(ctx, n, vals)
}

// evaluate decides n from its evaluated configuration.
func (d *Decider) evaluate(ctx context.Context, n *config.Node, vals config.Values) *Decision {
	p := d.Pipeline
	k := n.Block.Kind
	vals = &onceValues{vals: vals}
	dec := &Decision{Node: n, Kind: k, Record: d.State.Records[n.Addr.String()]}
	ev, diags := p.Evaluate(n, vals, SelfOutPlaceholder)
	if diags.HasErrors() {
		dec.Diags = diags
		return dec
	}
	var err error
	if ev.Config, err = d.PinConfig(n, ev.Config, d.Pins[n.Addr.String()]); err != nil {
		dec.Diags = append(dec.Diags, nodeError(n, "Invalid pin in kiln.lock.hcl for "+n.Addr.String(), err.Error()+"; run kiln lock -update "+n.Addr.String()))
		return dec
	}
	dec.Config = ev
	dec.KindNode = &kind.Node{Addr: n.Addr, Config: ev.Config, Root: p.Root, Out: p.OutPath(n.Addr), State: p.StateDir}
	if c, ok := k.(kind.Checker); ok && ev.Config.IsWhollyKnown() {
		if err := c.Check(dec.KindNode); err != nil {
			dec.Diags = append(dec.Diags, nodeError(n, "Invalid configuration of "+n.Addr.String(), err.Error()+"."))
			return dec
		}
	}
	if env, known := NodeEnv(n, vals, ev); known {
		dec.KindNode.Env = env
	}
	var prev *kind.Record
	if dec.Record.Good() {
		prev = d.Records.KindRecord(dec.Record)
	}
	if pr, ok := k.(kind.Prober); ok && ev.Config.IsWhollyKnown() {
		probe, err := pr.Probe(ctx, dec.KindNode, prev)
		if err != nil {
			dec.Diags = append(dec.Diags, nodeError(n, "Cannot inspect "+n.Addr.String(), err.Error()))
			return dec
		}
		dec.Probe = probe
		if probe != nil && probe.Blocked != "" {
			dec.Blocked = probe.Blocked
		}
	}
	d.decideProgram(dec)
	if b := d.upstreamBlocked(n, vals); b != "" && dec.Blocked == "" {
		dec.Blocked = b
	}
	// A node an executor runs elsewhere (Slurm) takes its resources from
	// the cluster, not from this machine's pools.
	if b := d.Pools.Blocked(n.Meta.Resources); b != "" && dec.Blocked == "" && n.Meta.Executor == "" {
		dec.Blocked = b
	}
	in, pending, err := d.keyInputs(n, dec, vals)
	var missing *MissingInputError
	if errors.As(err, &missing) {
		// One missing file stops this node, not the plan.
		d.decideMissing(dec, missing)
		return dec
	}
	var bad *BadInputError
	if errors.As(err, &bad) {
		dec.Diags = append(dec.Diags, inputsError(n, "Invalid input of "+n.Addr.String(), err))
		return dec
	}
	if err != nil {
		dec.Diags = append(dec.Diags, nodeError(n, "Cannot compute the key of "+n.Addr.String(), err.Error()))
		return dec
	}
	if len(pending) > 0 || !ev.Config.IsWhollyKnown() || !ev.ExtensionsKnown() {
		d.decideUnknown(dec, in, pending)
		d.nameVariables(dec)
		noteUnpinned(dec)
		d.protect(dec)
		return dec
	}
	key, _, err := keyLines(in)
	if err != nil {
		dec.Diags = append(dec.Diags, nodeError(n, "Cannot compute the key of "+n.Addr.String(), err.Error()))
		return dec
	}
	dec.Key = key.Sum().String()
	dec.KeyLines = key.Take()
	dec.Inputs = append(append([][2]string{}, in.inputs...), in.files...)
	dec.InputCount = len(in.inputs)
	if d.DebugKey != nil {
		d.DebugKey(n.Addr, dec.Key, dec.KeyLines)
	}
	d.decideKnown(ctx, dec)
	if dec.Record.Good() && dec.Record.Key == dec.Key {
		dec.LockMismatch = d.Mismatch(n, dec.Key, dec.Record.Digest)
	}
	d.nameVariables(dec)
	noteUnpinned(dec)
	d.protect(dec)
	return dec
}

// decideMissing decides a node an input of which is missing: it would run
// (its inputs changed), but cannot until the file is there.
func (d *Decider) decideMissing(dec *Decision, missing *MissingInputError) {
	dec.Action = Create
	dec.Reasons = []Reason{{Kind: ReasonNew}}
	if dec.Record.Good() {
		dec.Action = Rebuild
		dec.Reasons = []Reason{{Kind: ReasonInputRemoved, Subject: missing.Pattern}}
	}
	if dec.Blocked == "" {
		dec.Blocked = missing.Error()
	}
}

// Replaced reports whether -replace names n, or the dynamic block it is an
// instance of.
func (d *Decider) Replaced(n *config.Node) bool {
	return d.Replace[n.Addr] || n.Dynamic != nil && d.Replace[n.Addr.Block()]
}

// noteUnpinned adds to the reasons of a node that will run what its
// configuration leaves for the run to resolve (kind.Unpinned).
func noteUnpinned(dec *Decision) {
	u, ok := dec.Kind.(kind.Unpinned)
	if !ok || dec.Action == NoOp || !dec.KindNode.Config.IsWhollyKnown() {
		return
	}
	if what := u.Unpinned(dec.KindNode); what != "" {
		dec.Reasons = append(dec.Reasons, Reason{Kind: ReasonUnpinned, Detail: what})
	}
}

// upstreamBlocked reports an upstream node that cannot run on this machine
// (a host without the NPUs it requires, a missing toolchain, or a node that
// needs one of those): the node cannot run either.
func (d *Decider) upstreamBlocked(n *config.Node, vals config.Values) string {
	blocked := func(a addr.Node) string { return blockedOf(vals, a) }
	host := n.Meta.Host
	if n.Meta.Executor != "" {
		// A Slurm job runs on a compute node that Slurm picks for its
		// --gres: what this host lacks does not stop it.
		host = nil
	}
	for _, a := range []*addr.Node{host, n.Meta.Toolchain} {
		if a != nil {
			if why := blocked(*a); why != "" {
				// Kinds name themselves as "KIND NAME: ..."; say it once.
				return a.String() + ": " + strings.TrimPrefix(why, a.Kind+" "+a.Name+": ")
			}
		}
	}
	for _, a := range n.Deps {
		if host == nil && n.Meta.Host != nil && a == *n.Meta.Host {
			continue
		}
		if blocked(a) != "" {
			return "needs " + a.String() + ", which cannot run here"
		}
	}
	return ""
}

// decideUnknown decides a node whose key waits on upstream nodes that run
// first. Its lines are computed with each waiting upstream assumed to keep
// its recorded digest: when they differ from the record even so, the node's
// own configuration, inputs or pins changed and it is a rebuild with those
// reasons; when they do not, only the upstreams can change it — a maybe.
func (d *Decider) decideUnknown(dec *Decision, in keyInputs, pending []addr.Node) {
	if dec.Record.Good() {
		in.unknownOK = true
		if key, waiting, err := keyLines(in); err == nil {
			dec.KeyLines, dec.Waiting = key.Take(), waiting
		}
	}
	d.decideWaiting(dec, pending)
}

// decideWaiting decides a node whose key waits on the pending upstreams,
// from its lines computed with each of them assumed to keep its recorded
// digest (dec.KeyLines, dec.Waiting).
func (d *Decider) decideWaiting(dec *Decision, pending []addr.Node) {
	rec := dec.Record
	run := Rebuild
	if kind.IsService(dec.Kind) {
		run = Start
	}
	if !rec.Good() {
		dec.Action = Create
		dec.Reasons = []Reason{{Kind: ReasonNew}}
		if run == Start {
			dec.Action = Start
		}
		return
	}
	var also []Reason
	for _, a := range pending {
		also = append(also, Reason{Kind: ReasonUpstreamRuns, Subject: a.String()})
	}
	own := OwnChanges(rec.KeyLines, dec.KeyLines, dec.Waiting)
	if d.Replace[dec.Node.Addr] {
		own = []Reason{{Kind: ReasonReplace}}
	}
	if len(own) == 0 {
		dec.Action, dec.Reasons = Maybe, also
		return
	}
	for i := range also {
		also[i].Kind = ReasonUpstreamAlsoRuns
	}
	dec.Action, dec.Reasons = run, append(own, also...)
}

// OwnChanges explains how cur differs from the recorded lines, leaving out
// the lines that wait on an upstream digest (by index into cur) and the
// recorded lines of the same influences.
func OwnChanges(recorded, cur []hash.Line, waiting map[int]string) []Reason {
	if sameButWaiting(recorded, cur, waiting) {
		return nil
	}
	type id struct{ label, about string }
	skip := map[id]bool{}
	var mine []hash.Line
	for i, l := range cur {
		if _, ok := waiting[i]; ok {
			skip[id{l.Label, l.About()}] = true
			continue
		}
		mine = append(mine, l)
	}
	var before []hash.Line
	for _, l := range recorded {
		if !skip[id{l.Label, l.About()}] {
			before = append(before, l)
		}
	}
	return DiffKeyLines(before, mine)
}

// sameButWaiting reports whether cur has the recorded lines, in their
// order, the same but for the values of the lines that wait: the common
// case of a node whose upstreams run first, told without a map.
func sameButWaiting(recorded, cur []hash.Line, waiting map[int]string) bool {
	if len(recorded) != len(cur) {
		return false
	}
	for i, l := range cur {
		r := recorded[i]
		if l.Label != r.Label || l.About() != r.About() {
			return false
		}
		if _, ok := waiting[i]; !ok && l.Value != r.Value {
			return false
		}
	}
	return true
}

func (d *Decider) decideKnown(ctx context.Context, dec *Decision) {
	rec := dec.Record
	n := dec.Node
	service := kind.IsService(dec.Kind)
	run := Rebuild
	if service {
		run = Start
	}
	switch {
	case d.Replaced(n):
		dec.Action = run
		dec.Reasons = []Reason{{Kind: ReasonReplace}}
		return
	case rec.Good() && rec.Key == dec.Key:
		if n.Meta.AlwaysRun {
			dec.Action, dec.Reasons = run, []Reason{{Kind: ReasonAlwaysRun}}
			return
		}
		if dec.Probe != nil && dec.Probe.Down != "" {
			dec.Action, dec.Reasons = Start, []Reason{{Kind: ReasonService, Detail: dec.Probe.Down}}
			return
		}
		if tempRemoved(dec) {
			dec.Action, dec.TempRemoved = NoOp, true
			return
		}
		if drift, linkOnly := d.drift(ctx, dec); drift != "" {
			if linkOnly && !service && rec.Entry != "" {
				// The result is intact; only its stable path is gone or
				// moved: point it back, without running.
				dec.Action, dec.Restore = Restore, rec
				dec.Reasons = []Reason{{Kind: ReasonDrift, Detail: drift + "; the result is intact and is linked again"}}
				return
			}
			dec.Action, dec.Reasons = Repair, []Reason{{Kind: ReasonDrift, Detail: drift}}
			if service {
				dec.Action = Start
			}
			return
		}
		dec.Action = NoOp
		return
	}
	if !service {
		if r := d.Records.Stored(dec.Key); r != nil && d.restorable(r) {
			dec.Action, dec.Restore = Restore, r
			dec.Reasons = []Reason{{Kind: ReasonRestore}}
			if rec.Good() {
				dec.Reasons = append(dec.Reasons, DiffKeyLines(rec.KeyLines, dec.KeyLines)...)
			}
			return
		}
	}
	switch {
	case !rec.Good():
		dec.Action = Create
		if service {
			dec.Action = Start
		}
		dec.Reasons = []Reason{{Kind: ReasonNew}}
		if rec != nil && rec.Failure != nil {
			dec.Reasons = append(dec.Reasons, Reason{Kind: ReasonFailed, Detail: firstLine(rec.Failure.Error)})
		}
	default:
		dec.Action = run
		dec.Reasons = DiffKeyLines(rec.KeyLines, dec.KeyLines)
		if len(dec.Reasons) == 0 {
			dec.Reasons = []Reason{{Kind: ReasonKey, Detail: "key changed"}}
		}
	}
	if !service && n.Meta.Resumable && !d.Replaced(n) {
		if e := ResumeEntry(rec, dec.Key, d.Store); e != "" {
			dec.Reasons = append([]Reason{ResumeReason(d.Store, d.Pipeline.Root, e)}, dec.Reasons...)
		}
	}
}

// drift reports how a built node's outputs differ from its record.
func (d *Decider) drift(ctx context.Context, dec *Decision) (drift string, linkOnly bool) {
	rec := dec.Record
	name := dec.Node.Addr.FileName()
	if from, ok := d.MovedFrom[dec.Node.Addr]; ok {
		name = from.FileName()
	}
	if rec.Entry != "" && !state.ValidEntry(rec.Entry) {
		return "the result is kept in an earlier layout of the store, which this kiln does not use", false
	}
	if rec.Entry != "" {
		if key, ok := d.Store.Linked(name); !ok || key != rec.Entry {
			drift = fmt.Sprintf("%s no longer points at the result", d.Store.OutPath(name))
		}
	}
	if result := d.resultDrift(ctx, dec); result != "" {
		return result, false
	}
	return drift, drift != ""
}

// resultDrift reports how a built node's result differs from its record.
func (d *Decider) resultDrift(ctx context.Context, dec *Decision) string {
	rec := dec.Record
	if v, ok := dec.Kind.(kind.Verifier); ok {
		drift, err := v.Verify(ctx, dec.KindNode, d.Records.KindRecord(rec))
		if err != nil {
			return err.Error()
		}
		return drift
	}
	if rec.Attrs[AttrDigestBy] == "kind" {
		return ""
	}
	o := hash.TreeOptions{Listed: func(l *hash.Listing) { dec.Listing = l }}
	got, _, err := OutputDigestWith(d.Store, d.Pipeline.Root, rec.Entry, state.OutputPaths(d.Pipeline.Root, rec.Outputs), d.Stat, o)
	if err != nil {
		return err.Error()
	}
	if got != rec.Digest {
		return "digest " + human.Short(rec.Digest) + " → " + human.Short(got)
	}
	return ""
}

func nodeError(n *config.Node, summary, detail string) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: n.DeclRange.Ptr()}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// digestOf returns the digest attribute of an upstream value, if known.
// nodeDigest is node a's digest in vals, read without making the node's
// object where vals keeps it as its strings (config.NodeStrings).
func nodeDigest(vals config.Values, a addr.Node) (string, bool) {
	if s, ok := vals.(config.NodeStrings); ok {
		if dg, plain := s.NodeString(a, "digest"); plain {
			if !dg.IsKnown() || dg.IsNull() {
				return "", false
			}
			return dg.AsString(), true
		}
	}
	v, ok := vals.NodeValue(a)
	if !ok {
		return "", false
	}
	return digestOf(v)
}

func digestOf(v cty.Value) (string, bool) {
	if !v.Type().IsObjectType() || !v.Type().HasAttribute("digest") {
		return "", false
	}
	dg := v.GetAttr("digest")
	if !dg.IsKnown() || dg.IsNull() {
		return "", false
	}
	return dg.AsString(), true
}

// AttrPinPrefix marks record attributes that hold the pins a build resolved
// (kiln.pin.commit), which the lock file keeps.
const AttrPinPrefix = "kiln.pin."

// PinConfig applies a node's locked pins to its evaluated configuration when
// its kind implements kind.Pinner; otherwise cfg is returned as it is.
func (d *Decider) PinConfig(n *config.Node, cfg cty.Value, pins map[string]string) (cty.Value, error) {
	pk, ok := n.Block.Kind.(kind.Pinner)
	if !ok || len(pins) == 0 {
		return cfg, nil
	}
	return pk.Pin(&kind.Node{Addr: n.Addr, Config: cfg, Root: d.Pipeline.Root, Out: d.Pipeline.OutPath(n.Addr), State: d.Pipeline.StateDir}, pins)
}

// PinnedKey is the key dec's node has with pins applied instead of the locked
// ones: a build that resolved a pin for the first time (a ref's commit, a
// download's checksum) is recorded under the key its pinned configuration
// gives, so the next plan, which applies the pin from the lock, finds it up
// to date. vals must hold the digests of every upstream node.
func (d *Decider) PinnedKey(dec *Decision, vals config.Values, pins map[string]string) (string, []hash.Line, error) {
	n := dec.Node
	ev, diags := d.Pipeline.Evaluate(n, vals, SelfOutPlaceholder)
	if diags.HasErrors() {
		return "", nil, diags
	}
	cfg, err := d.PinConfig(n, ev.Config, pins)
	if err != nil {
		return "", nil, err
	}
	ev.Config = cfg
	re := *dec
	re.Config = ev
	kn := *dec.KindNode
	kn.Config = cfg
	re.KindNode = &kn
	in, pending, err := d.keyInputs(n, &re, vals)
	if err != nil {
		return "", nil, err
	}
	if len(pending) > 0 || !cfg.IsWhollyKnown() {
		return "", nil, fmt.Errorf("the key of %s is not known after its build", n.Addr)
	}
	key, _, err := keyLines(in)
	if err != nil {
		return "", nil, err
	}
	return key.Sum().String(), key.Take(), nil
}

// RecordedPins returns the pins kept in a record's attributes.
func RecordedPins(attrs map[string]string) map[string]string {
	var out map[string]string
	for k, v := range attrs {
		if name, ok := strings.CutPrefix(k, AttrPinPrefix); ok && name != "" {
			if out == nil {
				out = map[string]string{}
			}
			out[name] = v
		}
	}
	return out
}

// restorable reports whether a stored result can be put back without
// running: always for results in the store alone; for results with
// in-place outputs, only while those still hold what the result made
// (kiln keeps no copy of them).
func (d *Decider) restorable(r *state.Record) bool {
	if len(r.Outputs) == 0 || r.Attrs[AttrDigestBy] == "kind" {
		return true
	}
	got, _, err := OutputDigest(d.Store, d.Pipeline.Root, r.Entry, state.OutputPaths(d.Pipeline.Root, r.Outputs), d.Stat)
	return err == nil && got == r.Digest
}
