package engine

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/par"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/pool"
	"github.com/kilnbuild/kiln/engine/proc"
	"github.com/kilnbuild/kiln/engine/sandbox"
	"github.com/kilnbuild/kiln/engine/state"
)

// The plan after an edit. When the no-change certificate's pipeline-wide
// conditions still hold — the same pipeline files, lock, variables and
// environment, the files expressions read unchanged, the state as it was —
// every node's evaluated configuration is the one it was built with, as
// long as it reads nothing of other nodes but their out paths. A plan then
// needs no HCL: beside the certificate, kiln keeps each node's recorded key
// lines and what deciding it takes (.kiln/cache/noop.keys). QuickPlan checks
// every node as the certificate does; a node whose input files changed, or
// whose upstream will run, has its lines rewritten (plan.Rekey) and is
// decided by the Decider's own code (plan.DecideLines); the others are up to
// date. So only the nodes whose inputs changed and their dependents are
// decided again. Anything else — a restore, drift, a changed glob match, a
// program found elsewhere, a node that reads an upstream's digest, a
// dynamic block — means the full plan, so the result is always the full
// plan's.

const quickKeysFormat = "kiln-quickplan-1"

// quickKeys is, per node of the certificate (same index), what deciding it
// again from its lines takes.
type quickKeys struct {
	Format  string
	Config  string // the certificate's, to tie the two files
	Lineage string
	Serial  uint64
	Order   []int32 // node indexes in the order a plan decides them
	Nodes   []quickKeyNode
	// Stored are the first 8 bytes of the key of every result kept in the
	// store, sorted: a key found here may be a restore (full path).
	Stored []uint64
}

type quickKeyNode struct {
	Addr      string
	Kind      string
	Deps      []int32 // in the node's Deps order
	Key       string
	Lines     []byte // the record's key lines, each ended by "\n"
	Digest    string
	Entry     string
	Outputs   []state.Output
	Duration  time.Duration
	Resources map[string]int64
	Resumable bool
	// Rekeyable: the node reads nothing of its upstreams but their out
	// paths, and has no input written in place by another node, no
	// upstream of all instances, no instance files.
	Rekeyable bool
}

func quickKeysPath(stateDir string) string { return filepath.Join(stateDir, "cache", "noop.keys") }

// writeQuickKeys keeps beside the certificate c what the plan after an edit
// needs, or removes a stale file when the pipeline does not qualify.
func (w *Workspace) writeQuickKeys(c *quickCert) {
	path := quickKeysPath(w.pipeline.StateDir)
	k, ok := w.quickKeys(c, newWhyNot("the key lines for the plan after an edit", w.opts.DebugPlan))
	if !ok {
		_ = os.Remove(path)
		return
	}
	var buf bytes.Buffer
	if gob.NewEncoder(&buf).Encode(k) != nil {
		_ = os.Remove(path)
		return
	}
	_ = state.ReplaceFile(path, buf.Bytes(), 0o644)
}

func (w *Workspace) quickKeys(c *quickCert, why *whyNot) (*quickKeys, bool) {
	p := w.pipeline
	if len(p.Nodes) != len(c.Nodes) || len(w.dag.Nodes) != len(p.Nodes) {
		return nil, why.miss("dynamic blocks (the certificate lists their instances)")
	}
	if p.Cache != nil || w.opts.CacheURL != "" {
		return nil, why.miss("a plan asks the remote cache about what would run")
	}
	if len(p.Pools) > 0 {
		return nil, why.miss("pool blocks are read from the HCL")
	}
	k := &quickKeys{Format: quickKeysFormat, Config: c.Config, Lineage: c.Lineage, Serial: c.Serial, Nodes: make([]quickKeyNode, len(p.Nodes))}
	index := make(map[addr.Node]int32, len(p.Nodes))
	for i, n := range p.Nodes {
		if n.Dynamic != nil || w.dag.Nodes[i] != n {
			return nil, why.miss("%s: an instance of a dynamic block", n.Addr)
		}
		index[n.Addr] = int32(i)
	}
	for i, n := range p.Nodes {
		r := w.state.Records[n.Addr.String()]
		switch {
		case !r.Good():
			return nil, why.miss("%s: no good result", n.Addr)
		case n.Meta.Executor != "":
			return nil, why.miss("%s: runs on %s, whose jobs a plan looks for", n.Addr, n.Meta.Executor)
		case w.decider.Mismatch(n, r.Key, r.Digest) != nil:
			return nil, why.miss("%s: kiln.lock.hcl disowns its result", n.Addr)
		}
		for name := range n.Meta.Resources {
			if name != "cpu" && name != "mem_mb" {
				return nil, why.miss("%s: uses the %s pool, which a host reports", n.Addr, name)
			}
		}
		kn := quickKeyNode{Addr: n.Addr.String(), Kind: n.Block.Kind.Name(), Key: r.Key, Digest: r.Digest, Entry: r.Entry,
			Outputs: r.Outputs, Duration: r.Duration, Resources: n.Meta.Resources,
			Resumable: n.Meta.Resumable, Rekeyable: n.ReadsOnlyOut() && len(n.InputsFrom) == 0}
		for _, dep := range n.Deps {
			j, ok := index[dep]
			if !ok {
				kn.Rekeyable = false
				continue
			}
			kn.Deps = append(kn.Deps, j)
		}
		if len(kn.Deps) != len(n.Deps) {
			return nil, why.miss("%s: depends on every instance of a block", n.Addr)
		}
		var lines bytes.Buffer
		for _, l := range r.KeyLines {
			if strings.ContainsRune(l, '\n') {
				return nil, why.miss("%s: a key line holds a newline", n.Addr)
			}
			lines.WriteString(l)
			lines.WriteByte('\n')
			if strings.HasPrefix(l, "from ") {
				kn.Rekeyable = false
			}
		}
		kn.Lines = lines.Bytes()
		k.Nodes[i] = kn
	}
	for _, v := range w.dag.Graph.Order() {
		k.Order = append(k.Order, int32(v))
	}
	if len(k.Order) != len(k.Nodes) {
		return nil, why.miss("the plan's order does not hold every node")
	}
	for _, rs := range []map[string]*state.Record{w.state.History, w.state.Records} {
		for r := range maps.Values(rs) {
			if p, ok := keyPrefix(r.Key); ok && r.Good() {
				k.Stored = append(k.Stored, p)
			}
		}
	}
	slices.Sort(k.Stored)
	k.Stored = slices.Compact(k.Stored)
	return k, true
}

// keyPrefix is the first 8 bytes of a hex key.
func keyPrefix(key string) (uint64, bool) {
	if len(key) < 16 {
		return 0, false
	}
	b, err := hex.DecodeString(key[:16])
	if err != nil {
		return 0, false
	}
	return binary.BigEndian.Uint64(b), true
}

// QuickPlanResult is a plan made without loading the pipeline.
type QuickPlanResult struct {
	Plan  *plan.Plan
	Root  string // the pipeline's folder
	Stamp StateStamp
}

// QuickPlan makes the plan of the pipeline at o.Path from the certificate
// and the key lines kept beside it, when its configuration is as they
// recorded it; false means "make the full plan" (see the comment at the top
// of this file). The plan is the one the full path would make.
func QuickPlan(ctx context.Context, o Options) (*QuickPlanResult, bool) {
	why := newWhyNot("the plan after an edit", o.DebugPlan)
	if o.CacheURL != "" || o.StrictLock || o.DebugKey != nil {
		return nil, why.miss("a remote cache, -strict-lock or KILN_DEBUG_KEY needs the full plan")
	}
	q, ok := openQuick(o, why)
	if !ok {
		return nil, false
	}
	b, err := os.ReadFile(quickKeysPath(q.stateDir))
	if err != nil {
		return nil, why.miss("no key lines kept beside the certificate (a node whose upstream values it reads, or an other pool, leaves none)")
	}
	var k quickKeys
	if gob.NewDecoder(bytes.NewReader(b)).Decode(&k) != nil || k.Format != quickKeysFormat ||
		k.Config != q.cert.Config || k.Lineage != q.cert.Lineage || k.Serial != q.cert.Serial ||
		len(k.Nodes) != len(q.cert.Nodes) || len(k.Order) != len(k.Nodes) {
		return nil, why.miss("the key lines kept beside the certificate are damaged or of another certificate")
	}
	changed, ok := q.checkInputs()
	if !ok {
		return nil, false
	}
	// Nodes whose inputs changed, and their dependents, are decided again;
	// the others must still have their outputs as recorded.
	dirty := make([]bool, len(k.Nodes))
	var clean []int
	for _, v := range k.Order {
		i := int(v)
		if i >= len(dirty) {
			return nil, false
		}
		dirty[i] = len(changed[i]) > 0
		for _, j := range k.Nodes[i].Deps {
			dirty[i] = dirty[i] || int(j) < len(dirty) && dirty[j]
		}
		if !dirty[i] {
			clean = append(clean, i)
		}
	}
	if !parallel(len(clean), func(c int) bool { return q.outputsHold(q.cert.Nodes[clean[c]]) }) {
		return nil, false // drift: the full plan explains it
	}
	pl, ok := q.decide(ctx, &k, changed, dirty, o)
	if !ok {
		return nil, false
	}
	why.took(fmt.Sprintf("%d of %d nodes decided again", countTrue(dirty), len(dirty)))
	q.saveStat()
	return &QuickPlanResult{Plan: pl, Root: q.root, Stamp: StateStamp{Lineage: q.cert.Lineage, Serial: q.cert.Serial}}, true
}

// checkInputs checks every node in parallel: its stable link, program and
// glob matches must hold (false otherwise); its input and key files are
// hashed again, and those whose digest changed returned (path → digest).
func (q *quickSession) checkInputs() ([]map[string]string, bool) {
	nodes := q.cert.Nodes
	links, ok := hash.StampOf(q.store.LinksDir())
	trusted := ok && q.cert.Links != nil && *q.cert.Links == links
	out := make([]map[string]string, len(nodes))
	ok = parallel(len(nodes), func(i int) bool {
		var good bool
		out[i], good = q.checkNode(nodes[i], trusted)
		return good
	})
	return out, ok
}

// checkNode: links trusted means the links folder's stamp vouches for
// n.Link (see quickCert.Links).
func (q *quickSession) checkNode(n quickNode, linksTrusted bool) (map[string]string, bool) {
	if !linksTrusted {
		if key, ok := q.store.Linked(n.Link); !ok || key != n.Entry {
			return nil, q.why.miss("%s: its stable link does not lead to its result", n.Link)
		}
	}
	if !q.programsHold(&n) || !q.globsHold(&n) {
		return nil, false
	}
	var changed map[string]string
	for i, in := range n.Inputs {
		if i < len(n.InputSeals) && n.InputSeals[i] != (hash.Stamp{}) && hash.FileHolds(in.Path, n.InputSeals[i]) {
			continue // its digest is the recorded one
		}
		d, err := n.digest(i, q.statCache())
		if err != nil {
			return nil, q.why.miss("%s: input %s: %v", n.Link, relToRoot(q.root, in.Path), err)
		}
		if d != in.Digest {
			if changed == nil {
				changed = map[string]string{}
			}
			changed[in.Path] = d
		}
	}
	return changed, true
}

// outputsHold reports whether a node's result still has its recorded digest.
func (q *quickSession) outputsHold(n quickNode) bool {
	if n.Sealed && q.sealHolds(&n) {
		return true
	}
	got, _, err := plan.OutputDigest(q.store, q.root, n.Entry, n.Outputs, q.statCache())
	if err != nil || got != n.Digest {
		return q.why.miss("%s: its result changed outside kiln", n.Link)
	}
	return true
}

func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// parallel calls f(0) ... f(n-1) on a few goroutines and reports whether
// every call returned true; after a false, the calls left return at once.
func parallel(n int, f func(i int) bool) bool {
	var failed atomic.Bool
	par.Each(n, max(4, runtime.GOMAXPROCS(0)), func(i int) {
		if !failed.Load() && !f(i) {
			failed.Store(true)
		}
	})
	return !failed.Load()
}

// decide walks the nodes in plan order: unchanged ones are up to date, the
// others are decided again from their rewritten lines.
func (q *quickSession) decide(ctx context.Context, k *quickKeys, changed []map[string]string, dirty []bool, o Options) (*plan.Plan, bool) {
	kinds := map[string]kind.Kind{}
	for _, kd := range o.Kinds {
		kinds[kd.Name()] = kd
	}
	d := &plan.Decider{
		Pipeline: &config.Pipeline{Root: q.root, StateDir: q.stateDir},
		State:    &state.State{Records: map[string]*state.Record{}},
		Store:    q.store, Stat: q.statCache(), Pools: machinePools(o.Resources),
		Records: plan.OpenRecords(&state.State{}, q.store),
	}
	nodes := make([]*config.Node, len(k.Nodes))
	for i, kn := range k.Nodes {
		a, err := addr.Parse(kn.Addr)
		if err != nil {
			return nil, false
		}
		nodes[i] = &config.Node{Addr: a, CountIdx: -1, Meta: config.Meta{Resources: kn.Resources, Resumable: kn.Resumable}}
	}
	for i, kn := range k.Nodes {
		for _, j := range kn.Deps {
			if int(j) >= len(nodes) {
				return nil, false
			}
			nodes[i].Deps = append(nodes[i].Deps, nodes[j].Addr)
		}
	}
	vals := plan.NewValues()
	decs := make([]*plan.Decision, len(k.Nodes))
	protection := sandbox.Probe()
	pl := &plan.Plan{Pools: d.Pools, Sandbox: &protection, Changes: make([]*plan.Decision, 0, len(k.Nodes))}
	for _, v := range k.Order {
		i := int(v)
		kn := &k.Nodes[i]
		kd, ok := kinds[kn.Kind]
		if !ok || i >= len(decs) || decs[i] != nil {
			return nil, q.why.miss("%s: kind %s unknown, or the kept order is damaged", kn.Addr, kn.Kind)
		}
		rec := &state.Record{Addr: kn.Addr, Key: kn.Key, Digest: kn.Digest, Entry: kn.Entry, Outputs: kn.Outputs, Duration: kn.Duration}
		ups := map[string]string{}
		var pending []addr.Node
		for _, j := range kn.Deps {
			up := decs[j]
			switch {
			case up == nil:
				return nil, q.why.miss("%s: decided before its upstream (the kept order is damaged)", kn.Addr)
			case up.Action == plan.NoOp:
			case up.Action == plan.Rebuild || up.Action == plan.Maybe:
				ups[up.Node.Addr.String()] = ""
				pending = append(pending, up.Node.Addr)
			default:
				return nil, q.why.miss("%s: its upstream %s will %s", kn.Addr, up.Node.Addr, up.Action.Word())
			}
		}
		var dec *plan.Decision
		files := changed[i]
		if !dirty[i] {
			rec.KeyLines = splitLines(kn.Lines)
			dec = d.Unchanged(nodes[i], kd, rec, vals)
		} else {
			if !kn.Rekeyable {
				return nil, q.why.miss("%s: changed, and its configuration reads more of its upstreams than their out paths (or an input another node writes, or instance files)", kn.Addr)
			}
			rec.KeyLines = splitLines(kn.Lines)
			subjects := map[string]string{}
			for _, l := range rec.KeyLines {
				label, subject, _ := plan.SplitKeyLine(l)
				if label != "input" && label != "file" {
					continue
				}
				if p, ok := inputPath(q.root, subject); ok {
					if dg, changed := files[p]; changed {
						subjects[subject] = dg
					}
				}
			}
			lines, waiting, ok := plan.Rekey(rec.KeyLines, subjects, ups)
			if !ok {
				return nil, q.why.miss("%s: its key lines could not be rewritten", kn.Addr)
			}
			if len(pending) == 0 {
				if p, _ := keyPrefix(plan.KeySum(lines)); stored(k.Stored, p) {
					return nil, q.why.miss("%s: its new key may be a result kept in the store (a restore)", kn.Addr)
				}
			}
			dec = d.DecideLines(ctx, nodes[i], kd, rec, lines, waiting, pending, vals)
			if dec.Action != plan.Rebuild && dec.Action != plan.Maybe {
				return nil, q.why.miss("%s: decided %s, which needs the full plan", kn.Addr, dec.Action.Word())
			}
		}
		decs[i] = dec
		vals.Set(dec.Node.Addr, d.ValueAfter(dec))
		pl.Changes = append(pl.Changes, dec)
	}
	return pl, true
}

// stored reports whether a key prefix is among the sorted prefixes.
func stored(prefixes []uint64, p uint64) bool {
	_, found := slices.BinarySearch(prefixes, p)
	return found
}

func splitLines(b []byte) []string {
	s := strings.TrimSuffix(string(b), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// machinePools are the resource pools of this machine without the HCL and
// without probing a host: its CPUs and memory, and the -resource values.
// Pool blocks and host nodes are read from the HCL, so quickKeys leaves out
// a pipeline whose nodes ask for any other pool.
func machinePools(given map[string]pool.Given) pool.Set {
	return pool.Resolve(machineSources(given))
}

// machineSources are what this machine offers every pipeline: its CPUs,
// its memory, and the -resource values given.
func machineSources(given map[string]pool.Given) pool.Sources {
	src := pool.Sources{Given: given, CPUs: runtime.NumCPU()}
	if mb, ok := proc.MemoryMB(); ok {
		src.MemMB = mb
	}
	return src
}
