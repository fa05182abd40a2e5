package memo

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/state"
	"github.com/zclconf/go-cty/cty"
)

// From is what a memo is written from: a plan or an apply that has just
// found every node up to date, with the decisions it made (Evals).
type From struct {
	Options  Options // Version, Vars, VarFiles, Full and Say
	Remote   bool    // a remote cache is asked about what would run
	Pipeline *config.Pipeline
	DAG      *plan.DAG
	State    *state.State
	Store    *state.Store
	Stat     *hash.StatCache
	Decider  *plan.Decider // for what kiln.lock.hcl says of each result
	Evals    *Evals
	// Consulted is the memo the plan consulted, for the nodes it vouched
	// for (nil when none).
	Consulted *Consult
}

// Write records the memo of f, or removes a stale one when the pipeline
// does not qualify (the reason is said through Options.Say).
func Write(f From) {
	dir := f.Pipeline.StateDir
	why := newWhyNot("the memo", f.Options.Say)
	m, ok := f.memo(why)
	var data []byte
	if ok {
		if data, ok = encode(m); !ok {
			why.miss("a run folder holds what the memo does not keep")
		}
	}
	if !ok {
		Remove(dir)
		return
	}
	if holds(Path(dir), data) {
		// A plan that found what the last one did: the file stays, and
		// so does its time, without a write and a sync of the disk.
		why.took(fmt.Sprintf("as it was, for %d nodes", len(m.Nodes)))
		return
	}
	if os.MkdirAll(filepath.Dir(Path(dir)), 0o755) == nil && state.ReplaceFile(Path(dir), data, 0o644) == nil {
		why.took(fmt.Sprintf("written for %d nodes", len(m.Nodes)))
	}
}

func (f From) memo(why *whyNot) (*Memo, bool) {
	if f.Options.Full != "" {
		return nil, why.miss("%s", f.Options.Full)
	}
	p := f.Pipeline
	lineage, serial, ok := state.ReadStamp(p.StateDir)
	if !ok {
		return nil, why.miss("the state file's first line does not read")
	}
	files := make([]string, len(p.FileNames))
	for i, name := range p.FileNames {
		files[i] = filepath.Join(p.Root, name)
	}
	digest := func(path string) (hash.Digest, error) { return hash.File(path, f.Stat) }
	stamp, ok := hash.FileStamp(state.SnapshotPath(p.StateDir))
	if !ok {
		return nil, why.miss("no state file")
	}
	o := f.Options
	m := &Memo{Format: Format, Config: configDigest(o.Version, files, o.Vars, o.VarFiles, digest),
		Shared: sharedDigest(o.Version, p, digest), Lineage: lineage, Serial: serial, State: stamp}
	// The files exactly as the plan read them: a file the apply wrote
	// since (an in-place output that a count depends on) fails the check.
	reads, consistent := p.FilesRead()
	if !consistent {
		return nil, why.miss("a file an expression read was read twice with different results")
	}
	m.Reads = reads
	nodes, complete := p.Concrete()
	if !complete {
		return nil, why.miss("a dynamic block is not expanded yet")
	}
	// The nodes are read in parallel, each with the environment variables
	// its key read; where the refusal is to be said, one by one, so that
	// the first node in order that cannot be checked is the one named.
	m.Nodes = make([]Node, len(nodes))
	envs := make([]map[string]string, len(nodes))
	node := func(i int) bool {
		envs[i] = map[string]string{}
		var ok bool
		m.Nodes[i], ok = f.node(nodes[i], envs[i], why)
		m.Nodes[i].Config = p.NodeIdentity(nodes[i])
		return ok
	}
	if why.saying() {
		for i := range nodes {
			if !node(i) {
				return nil, false
			}
		}
	} else if !parallel(len(nodes), node) {
		return nil, false
	}
	env := map[string]string{}
	for _, e := range envs {
		maps.Copy(env, e)
	}
	for _, k := range slices.Sorted(maps.Keys(env)) {
		m.Env = append(m.Env, File{Path: k, Digest: env[k]})
	}
	if m.Replans = f.replans(m); m.Replans != "" {
		m.Order = nil
		for i := range m.Nodes {
			m.Nodes[i].Deps = nil
		}
	}
	return m, true
}

// node is what the memo holds of n, adding to env the digests of the
// environment variables its key read; false when the memo cannot be
// written. A node the memo cannot vouch for is still in it, with why
// (Node.Full) and its value, for its dependents.
func (f From) node(n *config.Node, env map[string]string, why *whyNot) (Node, bool) {
	p := f.Pipeline
	k := n.Block.Kind
	r := f.State.Records[n.Addr.String()]
	mn := Node{Addr: n.Addr.String(), Kind: k.Name()}
	e, decided := f.Evals.of(n.Addr)
	exportsKept := true
	if decided && !e.settled && r.Good() {
		mn.Value = f.value(n, r, e)
		mn.Exports, exportsKept = encodeExports(e.exports)
	}
	if mn.Full = f.full(n, r, decided); mn.Full == "" && !exportsKept {
		mn.Full = "its kind's exports are not known until it runs"
	}
	if mn.Full != "" {
		mn.Exports = nil
		return mn, true
	}
	if e.settled {
		old, ok := f.Consulted.node(mn.Addr)
		if !ok || old.Entry != r.Entry || old.Digest != r.Digest {
			mn.Full = "the memo it was up to date by is gone"
			return mn, true
		}
		mn = old
		mn.Deps = nil // the new memo's order gives them again (replans)
		if mn.Listing == nil {
			// Listed now that the folder may be older than the racy window.
			mn.Listing, _ = hash.ListFolder(f.Store.RunPath(r.Entry))
		}
		keyEnv(r, env)
		return mn, true
	}
	mn.Link, mn.Entry, mn.Digest = n.Addr.FileName(), r.Entry, r.Digest
	mn.Resources, mn.Resumable, mn.Rekeyable = n.Meta.Resources, n.Meta.Resumable, n.ReadsOnlyOut() && len(n.InputsFrom) == 0
	if pr, ok := e.program(programLine(r)); !ok {
		return Node{Addr: mn.Addr, Kind: mn.Kind, Value: mn.Value, Full: "its program cannot be found again without the full plan"}, true
	} else if pr != nil {
		mn.Programs = append(mn.Programs, *pr)
		// The PATH the program was found on starts from kiln's own.
		sum, err := state.SecretOf(p.StateDir).Sum([]byte(os.Getenv("PATH")))
		if err != nil {
			return Node{}, why.miss("%v", err)
		}
		env["PATH"] = sum
	}
	for _, pat := range e.patterns {
		matches, err := plan.ResolveInputs(p.Root, []string{pat})
		if err != nil {
			return Node{Addr: mn.Addr, Kind: mn.Kind, Value: mn.Value, Full: err.Error()}, true
		}
		mn.Globs = append(mn.Globs, Glob{Pattern: pat, Matches: matches})
	}
	if e.listing != nil && e.entry == r.Entry {
		mn.Listing = e.listing
	} else {
		mn.Listing, _ = hash.ListFolder(f.Store.RunPath(r.Entry))
	}
	if len(r.Outputs) > 0 {
		mn.Outputs = state.OutputPaths(p.Root, r.Outputs)
	}
	var keyFiles []File
	for _, l := range r.KeyLines {
		switch l.Label {
		case "input":
			if path, ok := inputPath(p.Root, l.Subject); ok {
				mn.Inputs = append(mn.Inputs, File{Path: path, Digest: l.Value})
			}
		case "file":
			if path, ok := inputPath(p.Root, l.Subject); ok {
				keyFiles = append(keyFiles, File{Path: path, Digest: l.Value})
			}
		case "from":
			// A dynamic instance is made from a file under an upstream's
			// result: the file is checked as a key file is, so a new
			// result there decides the instance again.
			mn.Rekeyable = false
			keyFiles = append(keyFiles, File{Path: fromPath(p, l.Subject), Digest: l.Value})
		}
	}
	keyEnv(r, env)
	mn.Inputs, mn.KeyFiles = append(mn.Inputs, keyFiles...), len(keyFiles)
	return mn, true
}

// full is why n is decided by the full plan at every plan, "" when the memo
// can vouch for it.
func (f From) full(n *config.Node, r *state.Record, decided bool) string {
	k := n.Block.Kind
	if _, probes := k.(kind.Prober); probes {
		return "kind " + k.Name() + " probes the machine at every plan"
	}
	if _, verifies := k.(kind.Verifier); verifies {
		return "kind " + k.Name() + " verifies its result at every plan"
	}
	switch {
	case n.Meta.AlwaysRun:
		return "always_run"
	case n.Meta.Unsandboxed != "":
		// The plan names the reason, which the memo does not hold.
		return "sandbox = false"
	case !r.Good() || r.Failure != nil || r.Entry == "":
		return "no good result"
	case r.Attrs[plan.AttrDigestBy] == "kind":
		return "its kind gives its digest"
	case !decided:
		return "not decided by this plan or apply"
	}
	return ""
}

// value is the digest of n's value as its dependents read it after the
// plan or apply that writes the memo.
func (f From) value(n *config.Node, r *state.Record, e certEval) string {
	if e.value != cty.NilVal && e.record == r {
		return valueDigest(e.value) // as the plan gave it, of this record
	}
	dec := &plan.Decision{Node: n, Kind: n.Block.Kind, Record: r, Action: plan.NoOp, Blocked: e.blocked, Exports: e.exports}
	return valueDigest(f.Decider.ValueAfter(dec))
}

// keyEnv adds to env the environment variables r's key read.
func keyEnv(r *state.Record, env map[string]string) {
	for _, l := range r.KeyLines {
		if l.Label == "env" {
			env[l.Subject] = l.Value
		}
	}
}

// replans is why a plan after an edit cannot be made from m, "" when it
// can; it gives m the plan's order and each node's upstreams.
func (f From) replans(m *Memo) string {
	p := f.Pipeline
	switch {
	case len(p.Nodes) != len(m.Nodes) || len(f.DAG.Nodes) != len(p.Nodes):
		return "dynamic blocks (the memo lists their instances)"
	case p.Cache != nil || f.Remote:
		return "a plan asks the remote cache about what would run"
	case len(p.Pools) > 0:
		return "pool blocks are read from the HCL"
	}
	index := make(map[addr.Node]int32, len(p.Nodes))
	for i, n := range p.Nodes {
		if n.Dynamic != nil || f.DAG.Nodes[i] != n || m.Nodes[i].Addr != n.Addr.String() {
			return n.Addr.String() + ": an instance of a dynamic block"
		}
		index[n.Addr] = int32(i)
	}
	for i, n := range p.Nodes {
		r := f.State.Records[n.Addr.String()]
		switch {
		case n.Meta.Executor != "":
			return fmt.Sprintf("%s: runs on %s, whose jobs a plan looks for", n.Addr, n.Meta.Executor)
		case f.Decider.Mismatch(n, r.Key, r.Digest) != nil:
			return n.Addr.String() + ": kiln.lock.hcl disowns its result"
		}
		for name := range n.Meta.Resources {
			if name != "cpu" && name != "mem_mb" {
				return fmt.Sprintf("%s: uses the %s pool, which a host reports", n.Addr, name)
			}
		}
		for _, dep := range n.Deps {
			j, ok := index[dep]
			if !ok {
				return n.Addr.String() + ": depends on every instance of a block"
			}
			m.Nodes[i].Deps = append(m.Nodes[i].Deps, j)
		}
	}
	for _, v := range f.DAG.Graph.Order() {
		m.Order = append(m.Order, int32(v))
	}
	if len(m.Order) != len(m.Nodes) {
		return "the plan's order does not hold every node"
	}
	return ""
}

// programLine is the text of r's program key line; empty for none.
func programLine(r *state.Record) string {
	line := ""
	for _, l := range r.KeyLines {
		if l.Label == "program" {
			line = l.Text()
		}
	}
	return line
}

// fromPath is the file a from key line names, which the key writes
// relocatable (hash.Relocatable).
func fromPath(p *config.Pipeline, subject string) string {
	path := strings.Replace(subject, "$KILN_STATE", p.StateDir, 1)
	return strings.Replace(path, hash.RootMark, p.Root, 1)
}

// holds reports whether the file at path holds exactly data, read a piece
// at a time rather than whole beside it.
func holds(path string, data []byte) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || fi.Size() != int64(len(data)) {
		return false
	}
	buf := make([]byte, 64<<10)
	for len(data) > 0 {
		n, err := io.ReadFull(f, buf[:min(len(buf), len(data))])
		if err != nil || !bytes.Equal(buf[:n], data[:n]) {
			return false
		}
		data = data[n:]
	}
	return true
}
