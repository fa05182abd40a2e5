package memo

import (
	"fmt"
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
	m := &Memo{Format: Format, Config: configDigest(o.Version, files, o.Vars, o.VarFiles, digest), Lineage: lineage, Serial: serial, State: stamp}
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
// environment variables its key read; false when n cannot be checked
// without the full plan.
func (f From) node(n *config.Node, env map[string]string, why *whyNot) (Node, bool) {
	p := f.Pipeline
	k := n.Block.Kind
	if _, probes := k.(kind.Prober); probes {
		return Node{}, why.miss("%s: kind %s probes the machine at every plan", n.Addr, k.Name())
	}
	if _, verifies := k.(kind.Verifier); verifies {
		return Node{}, why.miss("%s: kind %s verifies its result at every plan", n.Addr, k.Name())
	}
	r := f.State.Records[n.Addr.String()]
	switch {
	case n.Meta.AlwaysRun:
		return Node{}, why.miss("%s: always_run", n.Addr)
	case n.Meta.Unsandboxed != "":
		// The plan names the reason, which the memo does not hold.
		return Node{}, why.miss("%s: sandbox = false", n.Addr)
	case !r.Good() || r.Failure != nil || r.Entry == "":
		return Node{}, why.miss("%s: no good result", n.Addr)
	case r.Attrs[plan.AttrDigestBy] == "kind":
		return Node{}, why.miss("%s: its kind gives its digest", n.Addr)
	}
	mn := Node{Addr: n.Addr.String(), Kind: k.Name(), Link: n.Addr.FileName(), Entry: r.Entry, Digest: r.Digest,
		Resources: n.Meta.Resources, Resumable: n.Meta.Resumable, Rekeyable: n.ReadsOnlyOut() && len(n.InputsFrom) == 0}
	e, decided := f.Evals.of(n.Addr)
	if !decided {
		return Node{}, why.miss("%s: not decided by this plan or apply", n.Addr)
	}
	if pr, ok := e.program(programLine(r)); !ok {
		return Node{}, why.miss("%s: its program cannot be found again without the full plan", n.Addr)
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
			return Node{}, why.miss("%s: %v", n.Addr, err)
		}
		mn.Globs = append(mn.Globs, Glob{Pattern: pat, Matches: matches})
	}
	mn.Listing, _ = hash.ListFolder(f.Store.RunPath(r.Entry))
	if len(r.Outputs) > 0 {
		mn.Outputs = state.OutputPaths(p.Root, r.Outputs)
	}
	var keyFiles []File
	for _, l := range r.KeyLines {
		label, subject, value := plan.SplitKeyLine(l)
		switch label {
		case "input":
			if path, ok := inputPath(p.Root, subject); ok {
				mn.Inputs = append(mn.Inputs, File{Path: path, Digest: value})
			}
		case "file":
			if path, ok := inputPath(p.Root, subject); ok {
				keyFiles = append(keyFiles, File{Path: path, Digest: value})
			}
		case "env":
			env[subject] = value
		case "from":
			mn.Rekeyable = false
		}
	}
	mn.Inputs, mn.KeyFiles = append(mn.Inputs, keyFiles...), len(keyFiles)
	return mn, true
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

// programLine is the value of r's program key line; empty for none.
func programLine(r *state.Record) string {
	line := ""
	for _, l := range r.KeyLines {
		if label, _, _ := plan.SplitKeyLine(l); label == "program" {
			line = strings.TrimPrefix(l, "program ")
		}
	}
	return line
}
