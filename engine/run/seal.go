package run

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/kind/attr"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/sandbox"
	"github.com/kilnbuild/kiln/engine/state"
	"github.com/zclconf/go-cty/cty"
)

// sealedRun is what one run of a sealed node starts from: its private
// temporary folder (its HOME as well, unless the node sets one), the
// environment of its contract, and the policy that confines it (nil for a
// node with sandbox = false).
type sealedRun struct {
	contract *sandbox.Contract
	policy   *sandbox.Policy
	tmp      string
	keep     bool                 // tmp lives in the run folder (a service's), not removed after the run
	owners   map[string]addr.Node // an upstream's stable path and run folder → the upstream
	cwd      string
	// unnamed is the upstream in the node's closure whose result holds a
	// path, where the run may not read it: no result it may read names it.
	unnamed func(path string) (addr.Node, bool)
	// guarded are the upstream results a run is not stopped from writing
	// (no Landlock here, or sandbox = false), with their stat prints
	// before it: checked after it.
	guarded []guardedResult
}

// guardedResult is an upstream's result as it was before a run.
type guardedResult struct {
	path, print string
	owner       addr.Node
}

// seal prepares the sealed run of dec's node in its run folder dir, with
// the configuration cfg it runs: nil for a kind the engine does not seal.
// local is false for a run on another machine (a Slurm job), which makes
// its temporary folder there (RunJob). remove it once the run has ended.
func (a *Applier) seal(dec *plan.Decision, dir string, cfg cty.Value, local bool) (*sealedRun, error) {
	p := a.Decider.Pipeline
	n := dec.Node
	contract := plan.ContractOf(p, n)
	if contract == nil {
		return nil, nil
	}
	s := &sealedRun{contract: contract, cwd: p.Root, owners: map[string]addr.Node{}}
	switch {
	case kind.IsService(dec.Kind):
		// A service outlives its run: its temporary folder is in its run
		// folder, removed with it.
		s.tmp, s.keep = filepath.Join(dir, "tmp"), true
		if err := os.MkdirAll(filepath.Join(s.tmp, "home"), 0o700); err != nil {
			return nil, fmt.Errorf("the service's temporary folder: %w", err)
		}
	case local:
		var err error
		if s.tmp, err = a.runTemps.get(); err != nil {
			return nil, err
		}
	}
	r := attr.Read(cfg)
	workdir := r.String("dir")
	outputs := r.Strings("outputs")
	if workdir != "" {
		s.cwd = absPath(p.Root, workdir)
	}
	direct := closureOf(p, n.Deps, false)
	readable := readableUpstreams(p, n, cfg, direct, a.record)
	ups := upstreamResults(p, readable, len(direct), a.record, a.resultFolder)
	s.unnamed = func(path string) (addr.Node, bool) {
		up, ok := refOwner(p, a.Decider.Store, upstreamClosure(p, n), a.record, path)
		return up, ok && !slices.Contains(readable, up)
	}
	if n.Meta.Unsandboxed != "" || !sandbox.Probe().Enforced() {
		s.guard(ups)
	}
	traced := a.traced(n)
	if n.Meta.Unsandboxed != "" {
		if traced && s.tmp != "" {
			// Traced as it runs: unconfined, everything writable.
			s.policy = &sandbox.Policy{Root: p.Root, ReadAll: true, Write: []string{"/"}, Trace: traceFile(s.tmp)}
		}
		return s, nil
	}
	policy := &sandbox.Policy{Root: p.Root, Write: append([]string{dir}, a.Options.Writable...)}
	if traced && s.tmp != "" {
		policy.ReadAll, policy.Trace = true, traceFile(s.tmp)
	}
	// sandbox = "report" reads all of the pipeline folder, also in a batch
	// job, where its reads are not traced.
	policy.ReadAll = policy.ReadAll || n.Meta.ReportReads
	if s.tmp != "" {
		policy.Write = append(policy.Write, s.tmp)
	}
	// An output outside the pipeline folder is refused before the run: a
	// relocated run would not even reach the host's folder above it.
	if _, err := InPlaceOutputs(p.Root, p.StateDir, outputs, false); err != nil {
		return nil, err
	}
	for _, o := range outputs {
		policy.Write = append(policy.Write, writableOutput(absPath(p.Root, o)))
	}
	for _, in := range dec.Inputs {
		policy.Read = append(policy.Read, absPath(p.Root, in[0]))
	}
	if workdir != "" {
		policy.Read = append(policy.Read, s.cwd)
	}
	if prog := dec.Program.InRoot(p.Root); prog != "" {
		policy.Read = append(policy.Read, prog)
	}
	if n.Dynamic != nil {
		// The files of an upstream result its for_each key or value names
		// (their digests are in its key).
		policy.Read = append(policy.Read, n.Dynamic.Files...)
	}
	policy.Held = a.held
	for _, u := range ups {
		if u.linked {
			a.held.Hold(u.paths[0])
		}
		policy.Read = append(policy.Read, u.paths...)
		s.owners[p.OutPath(u.addr)] = u.addr
		for _, path := range u.paths {
			s.owners[path] = u.addr
		}
	}
	if contract.Fixed {
		policy.View = viewOf(p, dec.Key, dir, s.tmp, ups)
	}
	s.policy = policy
	return s, nil
}

// viewOf is where a relocated run of the node with key sees its folders:
// the pipeline folder (and the state folder, where it lies outside), its
// run folder dir as its own result, each upstream's result under that
// result's key (named by its run folder and its stable .kiln/out link), and
// its temporary folder tmp ("" for a Slurm job, which adds its own). The
// results of direct upstreams, which the command names, are bind mounts;
// the rest, reached only through those, links.
func viewOf(p *config.Pipeline, key, dir, tmp string, ups []upstreamResult) *sandbox.View {
	v := &sandbox.View{}
	v.Add(p.Root, sandbox.ViewPipeline)
	if !strings.HasPrefix(p.StateDir, p.Root+"/") {
		v.Add(p.StateDir, sandbox.ViewState)
	}
	v.Add(dir, sandbox.ResultAt(key))
	// Nodes whose keys are the same share one result: one place, under
	// each one's stable link, bound if any of them is a direct upstream.
	at := map[string]int{}
	for _, u := range ups {
		if len(u.paths) == 0 || !u.linked {
			continue
		}
		upKey, _, ok := state.ParseEntry(filepath.Base(u.paths[0]))
		if !ok || upKey == key {
			continue
		}
		if i, ok := at[upKey]; ok {
			b := &v.Binds[i]
			b.Aliases = append(b.Aliases, p.OutPath(u.addr))
			b.Link = b.Link && !u.direct
			continue
		}
		at[upKey] = len(v.Binds)
		if u.direct {
			v.Add(u.paths[0], sandbox.ResultAt(upKey), p.OutPath(u.addr))
		} else {
			v.AddLink(u.paths[0], sandbox.ResultAt(upKey), p.OutPath(u.addr))
		}
	}
	if tmp != "" {
		v.Add(tmp, sandbox.ViewTemp)
	}
	return v
}

// upstreamResult is where an upstream's result lies: its run folder and
// its in-place outputs.
type upstreamResult struct {
	addr   addr.Node
	paths  []string
	live   bool // a service's: its folder holds its live log and changes as it runs
	linked bool // paths[0] is the run folder its stable link points at
	direct bool // the node depends on it itself, not only through others
}

// upstreamResults are where the results of the readable upstreams lie,
// the first direct of them the node's own: each one's run folder and its
// in-place outputs. folder gives the run folder a stable link leads to,
// given the record of its node (nil for none).
func upstreamResults(p *config.Pipeline, readable []addr.Node, direct int, record func(string) (*state.Record, bool), folder func(link string, rec *state.Record) (string, error)) []upstreamResult {
	out := make([]upstreamResult, 0, len(readable))
	for i, up := range readable {
		u := upstreamResult{addr: up, direct: i < direct}
		if un := p.Node(up); un != nil && kind.IsService(un.Block.Kind) {
			u.live = true
		}
		rec, _ := record(up.String())
		if target, err := folder(p.OutPath(up), rec); err == nil {
			u.paths, u.linked = append(u.paths, target), true
		}
		if rec != nil {
			for _, o := range rec.Outputs {
				u.paths = append(u.paths, absPath(p.Root, o.Path))
			}
		}
		out = append(out, u)
	}
	return out
}

// resultAt is where a stable link led while its node's record named
// entry: the run folder entry in the folder parent (one string for the
// whole store, so an apply of many nodes keeps one path, not one each).
type resultAt struct{ entry, parent string }

// resultFolder is the run folder the stable link leads to, rec the record
// of its node. Resolving a link takes an lstat of each folder of its path
// and a readlink, and a run deep in a pipeline has thousands of upstreams. Kiln points a stable link at the
// run folder its record names and changes the two together, so within one
// apply a link resolved while the record named an entry leads to the same
// folder for as long as the record names that entry; a new record (a
// rebuilt temp result) resolves it again.
func (a *Applier) resultFolder(link string, rec *state.Record) (string, error) {
	if rec == nil || rec.Entry == "" {
		return resolveLink(link)
	}
	if at, ok := a.folders.Load(link); ok && at.(resultAt).entry == rec.Entry {
		return filepath.Join(at.(resultAt).parent, rec.Entry), nil
	}
	folder, err := filepath.EvalSymlinks(link)
	if err != nil {
		return "", err
	}
	// Remembered only where link and record agree on the folder.
	if parent, base := filepath.Split(folder); base == rec.Entry {
		a.folders.Store(link, resultAt{entry: rec.Entry, parent: a.storeParent(filepath.Clean(parent))})
	}
	return folder, nil
}

// storeParent is parent, as the one string kept for it.
func (a *Applier) storeParent(parent string) string {
	if p, ok := a.parents.LoadOrStore(parent, parent); ok {
		return p.(string)
	}
	return parent
}

// guard takes the stat prints of the upstream results, to check after the
// run that it left them as they were.
func (s *sealedRun) guard(ups []upstreamResult) {
	for _, u := range ups {
		if u.live {
			continue
		}
		for _, path := range u.paths {
			if print, _, err := hash.StatPrint(path); err == nil {
				s.guarded = append(s.guarded, guardedResult{path: path, print: print, owner: u.addr})
			}
		}
	}
}

// checkResults fails a run that changed an upstream's result it was not
// stopped from writing. The change is found, not prevented: the next plan
// repairs that upstream.
func (s *sealedRun) checkResults(node addr.Node, root string) error {
	if s == nil {
		return nil
	}
	for _, g := range s.guarded {
		print, _, err := hash.StatPrint(g.path)
		if err == nil && print == g.print {
			continue
		}
		return fmt.Errorf("%s changed %s's result (%s) while it ran; results are read-only — write into $KILN_OUT instead (link or copy what it needs from %s there first). Nothing stopped the write (%s), so kiln plan repairs %s", node, g.owner, relPath(root, g.path), g.owner, s.unconfined(), g.owner)
	}
	return nil
}

// unconfined says why a run was not stopped from writing.
func (s *sealedRun) unconfined() string {
	if s.policy == nil || s.policy.ReadAll && slices.Contains(s.policy.Write, "/") {
		return "sandbox = false"
	}
	return "no Landlock: " + sandbox.Probe().Reason
}

// env is the environment of the run: base with the contract's defaults on
// top, and the private folders (a remote run adds its own).
func (s *sealedRun) env(base []string) []string {
	env := plan.MergeEnv(base, s.contract.Env...)
	if s.tmp == "" {
		return env
	}
	return plan.MergeEnv(env, tempEnv(s.tmp)...)
}

// remove gives the run's temporary folder back to the apply, which empties
// it for another run (runtemp.go).
func (s *sealedRun) remove(temps *runTemps) {
	if s != nil && !s.keep {
		temps.put(s.tmp)
	}
}

// tempEnv points TMPDIR and HOME into a run's private temporary folder;
// a node's own env may set HOME elsewhere.
func tempEnv(tmp string) []string {
	return []string{"TMPDIR=" + tmp, "HOME=" + filepath.Join(tmp, "home")}
}

// writableOutput is the path to allow for an in-place output: the output,
// or, while it does not exist yet, the nearest folder above it that does,
// since only an existing path can be allowed. That folder is writable to
// the run as a whole: the cost of an output whose folder is not there yet.
func writableOutput(path string) string {
	for p := path; ; p = filepath.Dir(p) {
		if _, err := os.Lstat(p); err == nil || p == filepath.Dir(p) {
			return p
		}
	}
}

// upstreamClosure are the nodes n depends on, directly or through others:
// a run may read each one's result.
func upstreamClosure(p *config.Pipeline, n *config.Node) []addr.Node {
	return closureOf(p, n.Deps, true)
}

// closureOf are the nodes deps name (a whole block's instances for a
// block), and, deep, what they depend on in turn.
func closureOf(p *config.Pipeline, deps []addr.Node, deep bool) []addr.Node {
	var out []addr.Node
	seen := map[addr.Node]bool{}
	var visit func(deps []addr.Node)
	visit = func(deps []addr.Node) {
		for _, d := range deps {
			var nodes []*config.Node
			if d.Key.All {
				nodes, _ = p.Expanded(d.Block())
			} else if u := p.Node(d); u != nil {
				nodes = []*config.Node{u}
			}
			for _, u := range nodes {
				if seen[u.Addr] {
					continue
				}
				seen[u.Addr] = true
				out = append(out, u.Addr)
				if deep {
					visit(u.Deps)
				}
			}
		}
	}
	visit(deps)
	return out
}

// explain adds to a sealed run's failure what its log says it was refused:
// each path, whose it is, and what to write instead.
func (s *sealedRun) explain(err error, node addr.Node, root string, log []string) error {
	if s == nil || s.policy == nil {
		return err
	}
	denied := s.policy.Denied(log, s.cwd)
	if len(denied) == 0 {
		return err
	}
	return fmt.Errorf("%w; the sandbox refused it: %s", err, s.refusals(node, root, denied))
}

// checkRefused fails a run that succeeded although the sandbox refused it
// a path in the pipeline folder, as its log says: a command that read an
// undeclared file through $(cat FILE), or ignored a failed write, made its
// result without it, and that result is not kept. A refusal outside the
// pipeline folder (a tool's optional cache) is left to the command.
func (s *sealedRun) checkRefused(node addr.Node, root string, log []string) error {
	if s == nil || s.policy == nil || len(log) == 0 {
		return nil
	}
	var inside []sandbox.Denial
	for _, d := range s.policy.Denied(log, s.cwd) {
		if within(root, d.Path) || within(root, d.Real) {
			inside = append(inside, d)
		}
	}
	if len(inside) == 0 {
		return nil
	}
	return fmt.Errorf("%s exited 0, but the sandbox refused it files of the pipeline folder, so its result is not kept: %s", node, s.refusals(node, root, inside))
}

// refusals says what each denial was and the way forward, in one line.
func (s *sealedRun) refusals(node addr.Node, root string, denied []sandbox.Denial) string {
	var says []string
	for _, d := range denied {
		says = append(says, s.refusal(node, root, d))
	}
	return strings.Join(says, "; ")
}

// refusal says why the run of node was refused a path, and the way
// forward. A refused path that exists and that the run may not read was
// most likely read; any other was written.
func (s *sealedRun) refusal(node addr.Node, root string, d sandbox.Denial) string {
	rel, path := relPath(root, d.Path), d.Real
	_, err := os.Lstat(path)
	read := err == nil && !s.policy.Readable(path)
	for owned, up := range s.owners {
		if within(owned, d.Path) || within(owned, path) {
			return fmt.Sprintf("%s wrote %s, which is %s's result; results are read-only — write into $KILN_OUT instead (link or copy what it needs from %s there first)", node, rel, up, up)
		}
	}
	if up, ok := s.unnamedOwner(path); ok && read {
		return fmt.Sprintf("%s read %s, which is %s's result, but depends on %s only through upstreams whose results do not name it; reference its result (${%s.out}) in %s's configuration, or add it to depends_on", node, rel, up, up, up, node)
	}
	switch {
	case within(filepath.Join(root, ".kiln"), path) && read:
		return fmt.Sprintf("%s read %s, kiln's state, without depending on the node whose result it is; reference that node's result (${KIND.NAME.out}) in its configuration, so that it runs first and a change to it reruns this node", node, rel)
	case within(filepath.Join(root, ".kiln"), path):
		return fmt.Sprintf("%s wrote %s, kiln's state; a run may write only $KILN_OUT, its outputs and $TMPDIR", node, rel)
	case within(root, path) && read:
		return fmt.Sprintf("%s read %s, which it does not declare; add it to the node's inputs (inputs = [..., %q]) so that a change to it reruns the node", node, rel, rel)
	case within(root, path):
		return fmt.Sprintf("%s wrote %s in the pipeline folder, which is read-only to runs; write into $KILN_OUT, or declare it in outputs = [%q]", node, rel, rel)
	}
	return fmt.Sprintf("%s wrote %s, outside its result; a run may write only $KILN_OUT, its outputs and $TMPDIR (allow a path on this host with %s, or set sandbox = false with a sandbox_reason)", node, path, sandbox.WritableEnv)
}

// unnamedOwner is s.unnamed, where s has one.
func (s *sealedRun) unnamedOwner(path string) (addr.Node, bool) {
	if s.unnamed == nil {
		return addr.Node{}, false
	}
	return s.unnamed(path)
}

// record is the node's record as this apply has it: the writer's, or the
// decider's state when the apply writes none (kiln apply -check).
func (a *Applier) record(address string) (*state.Record, bool) {
	if a.Writer != nil {
		return a.Writer.Record(address)
	}
	r, ok := a.Decider.State.Records[address]
	return r, ok
}
