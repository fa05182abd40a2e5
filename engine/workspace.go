package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/history"
	"github.com/kilnbuild/kiln/engine/human"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/lockfile"
	"github.com/kilnbuild/kiln/engine/memo"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/pool"
	"github.com/kilnbuild/kiln/engine/remotecache"
	"github.com/kilnbuild/kiln/engine/run"
	"github.com/kilnbuild/kiln/engine/sandbox"
	"github.com/kilnbuild/kiln/engine/state"
)

// Version is kiln's version, recorded in state and printed by kiln version.
var Version = "0.1.0"

// Options say which pipeline to open and how.
type Options struct {
	Path     string
	Vars     map[string]string
	VarFiles []string
	Kinds    []kind.Kind
	Targets  []addr.Node
	Replace  []addr.Node
	// Resources are the -resource values: pool sizes or device ids that
	// override the pipeline's pool blocks and what a host node reports.
	// Plan and apply both decide with the pools they make (Pools).
	Resources map[string]pool.Given
	// DebugKey receives every key computed, with its lines as they show
	// (with their notes).
	DebugKey func(a addr.Node, key string, lines []string)
	// DebugPlan receives why the memo (the no-change check, the plan after
	// an edit, the memo written after a plan) was or was not used.
	DebugPlan func(string)
	// NoMemo makes every plan decide every node (KILN_NO_QUICK=1).
	NoMemo bool
	// VerifyDirect evaluates every node read without HCL with HCL as well,
	// and makes a difference an error (KILN_PLAN_VERIFY=1; config.Options).
	VerifyDirect bool
	// StateDir is the state folder; default: .kiln beside the pipeline.
	StateDir string
	// StrictLock makes a build that does not reproduce the digest
	// kiln.lock.hcl records under the same key an error (-strict); a
	// pipeline sets it with kiln { strict_lock = true }.
	StrictLock bool
	// MaxDynamic bounds the instances of a block whose for_each or count
	// reads another node's result (config.DefaultMaxDynamic when 0).
	MaxDynamic int
	// CacheURL (KILN_CACHE_URL), when set, names the remote cache instead
	// of the pipeline's cache block; CacheAuth are its credentials.
	CacheURL  string
	CacheAuth remotecache.Auth
	// CacheSigningKey (KILN_CACHE_SIGNING_KEY), when set, is the file of
	// the key pushed records are signed with, instead of the cache block's
	// signing_key.
	CacheSigningKey string
	// Kiln is this kiln's binary as the Slurm compute nodes see it, for
	// the jobs to run (an executor's kiln attribute overrides it).
	Kiln string
}

// Workspace is an opened pipeline with its state.
type Workspace struct {
	pipeline *config.Pipeline
	dag      *plan.DAG
	state    *state.State
	store    *state.Store
	records  *plan.Records
	stat     *hash.StatCache
	decider  *plan.Decider
	scope    []bool
	// lock is kiln.lock.hcl beside the pipeline (empty when there is none).
	lock *lockfile.File
	opts Options
	// scratch marks a workspace whose state folder is a scratch one (apply
	// -check): it never writes the pipeline's lock.
	scratch bool
	// moves are the moves of moved blocks, made in memory since Open.
	moves []plan.Moved
	// applied holds the node values as the last apply left them.
	applied *plan.Values
	// runID is the record of the last apply (engine/history); 0 for none.
	runID int
	// recordErr is a failure to write that record, which did not stop the
	// apply.
	recordErr error
	// pools are this machine's pools, read once per workspace (Pools).
	pools pool.Set
	// evals are what the memo takes of each node's last decision.
	evals memo.Evals
	// consulted is the memo the last plan consulted (consultMemo), or nil.
	consulted *memo.Consult
}

// Open loads the pipeline at o.Path and its state. Diagnostics describe
// configuration problems; the error, other failures (a corrupt state).
func Open(o Options) (*Workspace, hcl.Diagnostics, error) {
	// The state is read while the pipeline loads: neither needs the other.
	var early *stateRead
	if dir, ok := config.StateDirOf(o.Path, o.StateDir); ok {
		early = readState(dir)
	}
	p, diags := config.Load(o.Path, config.Options{StateDir: o.StateDir, Kinds: o.Kinds, Vars: o.Vars, VarFiles: o.VarFiles, MaxDynamic: o.MaxDynamic, VerifyDirect: o.VerifyDirect})
	if diags.HasErrors() {
		return &Workspace{pipeline: p}, diags, nil
	}
	dag, d := plan.BuildDAG(p)
	diags = append(diags, d...)
	if diags.HasErrors() {
		return &Workspace{pipeline: p}, diags, nil
	}
	w := &Workspace{pipeline: p, dag: dag, opts: o}
	if early == nil || early.dir != p.StateDir {
		early = readState(p.StateDir)
	}
	if err := w.takeState(early); err != nil {
		return w, diags, err
	}
	if d := w.loadLock(); d.HasErrors() {
		return w, append(diags, d...), nil
	}
	moves, d := w.findMoves()
	if d.HasErrors() {
		return w, append(diags, d...), nil
	}
	w.moves = moves
	w.moveInMemory(moves)
	scope, err := dag.Scope(o.Targets)
	if err != nil {
		return w, diags, w.withSuggestion(err, o.Targets)
	}
	w.scope = scope
	replace := map[addr.Node]bool{}
	for _, r := range o.Replace {
		found := false
		for _, n := range p.Nodes {
			if n.Addr == r || !r.Key.Set && n.Addr.Block() == r {
				replace[n.Addr] = true
				found = true
			}
		}
		if p.Dynamic(r) {
			// Instances of a dynamic block are known once it expands.
			replace[r], found = true, true
		}
		if !found {
			return w, diags, w.withSuggestion(fmt.Errorf("-replace %s: no such node in the pipeline", r), []addr.Node{r})
		}
	}
	w.decider = &plan.Decider{DebugKey: showKey(o.DebugKey), Pipeline: p, Replace: replace, MovedFrom: movedFrom(moves), Targeted: len(o.Targets) > 0}
	w.bindDecider()
	return w, diags, nil
}

func (w *Workspace) loadState() error {
	return w.takeState(readState(w.pipeline.StateDir))
}

// stateRead is the state and stat cache of a state folder, being read.
type stateRead struct {
	dir   string
	done  chan struct{}
	state *state.State
	stat  *hash.StatCache
	err   error
}

// readState starts reading the state and the stat cache of the state
// folder dir.
func readState(dir string) *stateRead {
	r := &stateRead{dir: dir, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		if r.state, r.err = state.Load(dir); r.err == nil {
			r.stat = hash.LoadStatCache(statCachePath(dir))
		}
	}()
	return r
}

// takeState waits for r and keeps what it read.
func (w *Workspace) takeState(r *stateRead) error {
	<-r.done
	if r.err != nil {
		return r.err
	}
	w.state = r.state
	w.store = state.OpenStore(r.dir)
	w.records = plan.OpenRecords(w.state, w.store)
	w.stat = r.stat
	return nil
}

func (w *Workspace) statCachePath() string { return statCachePath(w.pipeline.StateDir) }

// statCachePath is the stat cache of the state folder dir.
func statCachePath(dir string) string { return filepath.Join(dir, "cache", "stat") }

// Plan decides every node in scope.
func (w *Workspace) Plan(ctx context.Context) (*plan.Plan, hcl.Diagnostics) {
	return w.plan(ctx, false)
}

// PlanOnce is Plan for a workspace that is neither planned nor applied
// again (kiln plan): as it decides, it lets go of each block's syntax tree
// (parsed again from its source as its first node is decided) and of each
// decision's evaluated configuration, value, key lines and hashed inputs
// (plan.Decider.LetGo).
func (w *Workspace) PlanOnce(ctx context.Context) (*plan.Plan, hcl.Diagnostics) {
	return w.plan(ctx, true)
}

func (w *Workspace) plan(ctx context.Context, once bool) (*plan.Plan, hcl.Diagnostics) {
	w.decider.Pools = w.Pools(ctx)
	protection := sandbox.Probe()
	w.decider.Sandbox = &protection
	w.decider.Memo = w.consultMemo()
	var outputs decidedOutputs
	w.decider.Decided = func(d *plan.Decision) {
		outputs.check(w, d)
		if once && d.Action == plan.NoOp {
			w.evals.Note(d) // the memo is written only when every node is
		}
	}
	w.decider.LetGo = once
	pl, diags := w.decider.Make(ctx, w.dag, w.scope)
	w.decider.Memo, w.decider.Decided, w.decider.LetGo = nil, nil, false
	if w.consulted != nil {
		w.consulted.Said(len(pl.Changes))
	}
	pl.Moved = w.moves
	diags = append(diags, w.pipeline.CheckExpressions()...)
	diags = append(diags, w.decider.SharedNodes()...)
	diags = append(diags, w.annotate(ctx, pl)...)
	w.saveStatCache()
	for _, d := range pl.Changes {
		if o := outputs.of(d); o != nil {
			diags = append(diags, o)
		}
		if m := d.LockMismatch; m != nil && w.StrictLock() {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Result differs from kiln.lock.hcl",
				Detail:  (&run.LockMismatchError{Addr: d.Node.Addr, LockMismatch: *m}).Error() + ".",
				Subject: d.Node.DeclRange.Ptr()})
		}
	}
	if !diags.HasErrors() && !pl.HasChanges() && !hasMismatch(pl) {
		if !once {
			w.evals.NoteAll(pl.Changes)
		}
		w.writeMemo()
	}
	return pl, diags
}

func (w *Workspace) saveStatCache() {
	if state.MakeDir(w.pipeline.StateDir) != nil {
		return
	}
	if err := os.MkdirAll(filepath.Dir(w.statCachePath()), 0o755); err == nil {
		_ = w.stat.Save(w.statCachePath())
	}
}

// ApplyOptions tune an apply. The pools come from Options.Resources, the
// pipeline's pool blocks and its host node (see Pools).
type ApplyOptions struct {
	Parallelism int
	FailFast    bool
	// Jobs bounds the Slurm jobs submitted and not finished (-jobs N);
	// 0 means only each executor's max_jobs.
	Jobs    int
	Hooks   run.Hooks
	Command string // the command line, recorded as the lock holder
	// Expect, when set, is the state lineage and serial a saved plan was
	// made against; the apply refuses if the state moved since.
	Expect *StateStamp
	// KeepRuns is how many run records (kiln report) are kept, this apply's
	// included: 0 means history.DefaultKeep, a negative number records none.
	KeepRuns int
	// OnRecover, when set, hears of the runs an earlier apply that died left
	// unfinished, once they are settled and before any node runs.
	OnRecover func([]Recovered)
	// Trace names nodes (a block names each of its instances) whose runs
	// are traced (run.Options.Trace); the workspace must be opened with
	// them among Options.Replace, so that they run.
	Trace []addr.Node
	// Final says the workspace is not planned or applied again (kiln
	// apply): each block's syntax tree is let go once its instances have
	// had their turn (run.Options.LetGo), and once every node has run the
	// rest are, before the state and the memo are written
	// (config.ForgetSyntax).
	Final bool
}

// StateStamp identifies one version of a state.
type StateStamp struct {
	Lineage string `json:"lineage"`
	Serial  uint64 `json:"serial"`
}

// Stamp returns the identity of the current state. A state that was never
// written has no lineage yet (a fresh one is made on every load), so its
// stamp is empty.
func (w *Workspace) Stamp() StateStamp {
	if w.state.Serial == 0 && len(w.state.Records) == 0 {
		return StateStamp{}
	}
	return StateStamp{Lineage: w.state.Lineage, Serial: w.state.Serial}
}

// ErrStalePlan is returned when a saved plan no longer matches the state.
var ErrStalePlan = errors.New("the saved plan is stale")

// Apply runs the pipeline under the exclusive apply lock.
func (w *Workspace) Apply(ctx context.Context, o ApplyOptions) (*run.Result, error) {
	if diags := w.Validate(); diags.HasErrors() {
		return nil, &run.DiagError{Diags: diags}
	}
	dir := w.pipeline.StateDir
	if err := state.MakeDir(dir); err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	lock, err := state.AcquireLock(dir, state.Holder{PID: os.Getpid(), Host: host, Started: time.Now().UTC(), Command: o.Command})
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	if err := w.reload(o); err != nil {
		return nil, err
	}
	moves, d := w.findMoves()
	if d.HasErrors() {
		return nil, &run.DiagError{Diags: d}
	}
	// The memo is checked before the run log is opened; a node it vouches
	// for is up to date at its turn without being evaluated, while its
	// upstreams' values are the recorded ones (a node that ran changes
	// them). Moved blocks change addresses under it: no memo then.
	consult := w.consultMemo()
	if len(moves) > 0 {
		consult, w.consulted = nil, nil
	}
	cache, err := w.cacheOptions()
	if err != nil {
		return nil, err
	}
	writer, err := state.OpenWriter(dir, w.state)
	if err != nil {
		return nil, err
	}
	runs, recovered, err := settle(dir, w.store, writer)
	if len(recovered) > 0 && o.OnRecover != nil {
		o.OnRecover(recovered)
	}
	if err != nil {
		return nil, errors.Join(err, writer.Close())
	}
	if err := w.moveRecorded(writer, moves); err != nil {
		_ = writer.Close()
		return nil, err
	}
	// Decisions compare against the records as they were when the apply
	// started, moved blocks at their new addresses; the writer updates the
	// live state concurrently.
	w.bindDecider()
	w.decider.MovedFrom = nil
	w.decider.Memo = consult
	defer func() { w.decider.Memo = nil }()
	w.decider.State = w.state.Snapshot()
	w.records = plan.OpenRecords(w.decider.State, w.store)
	w.decider.Records = w.records
	pools := w.Pools(ctx)
	rec, err := w.beginRun(o, host, pools)
	if err != nil {
		_ = writer.Close()
		return nil, err
	}
	reportProgress(w.pipeline.Kinds, o.Hooks)
	a := &run.Applier{Decider: w.decider, DAG: w.dag, Writer: writer, Runs: runs, Options: run.Options{
		Parallelism: o.Parallelism, Pools: pools, FailFast: o.FailFast, Scope: w.scope,
		Hooks: withRecorder(o.Hooks, rec), Host: host, Version: Version, StrictLock: w.StrictLock(),
		Jobs: o.Jobs, Slurm: run.SlurmOptions{Kiln: w.opts.Kiln}, Cache: cache,
		Writable: sandbox.HostWritable(), Trace: w.traced(o.Trace), Decided: w.evals.Note, LetGo: o.Final,
	}}
	res, applyErr := a.Apply(ctx)
	if o.Final && applyErr == nil && res != nil && !res.Failed() {
		w.pipeline.ForgetSyntax()
	}
	if w.consulted != nil && consult != nil && res != nil {
		w.consulted.Said(len(res.Nodes))
	}
	return w.endApply(ctx, a, res, applyErr, writer, runs, rec)
}

// bindDecider points the decider at what the workspace has loaded — the
// state, the store, the records, the stat cache, the lock's pins and the
// builds it records — once more after moves have moved lock entries. The
// one place these are set; an apply then decides against a snapshot of
// the state.
func (w *Workspace) bindDecider() {
	d := w.decider
	d.State, d.Store, d.Records, d.Stat = w.state, w.store, w.records, w.stat
	d.Pins, d.Locked = w.lock.Pins, lockedBuilds(w.lock)
}

// reload reads the state and the lock file again under the apply lock,
// since either may have changed since Open, and checks that a saved plan
// was made against this state.
func (w *Workspace) reload(o ApplyOptions) error {
	if err := w.loadState(); err != nil {
		return err
	}
	if d := w.loadLock(); d.HasErrors() {
		return d
	}
	w.bindDecider()
	if o.Expect != nil && *o.Expect != w.Stamp() {
		return fmt.Errorf("%w: it was made against state serial %d, the state is now at serial %d (lineage %s); run kiln plan again", ErrStalePlan, o.Expect.Serial, w.state.Serial, shortLineage(w.state.Lineage))
	}
	return nil
}

// endApply makes what the apply did durable: the records, the run
// journal's end, the apply's record, the forgotten records, the lock file,
// the stat cache and, when every node is up to date, the memo.
func (w *Workspace) endApply(ctx context.Context, a *run.Applier, res *run.Result, applyErr error, writer *state.Writer, runs *state.RunLog, rec *history.Recorder) (*run.Result, error) {
	// The records of the runs that ended are made durable before the run
	// journal stops naming them: killed in between, the next apply would
	// find neither a record nor a run for their folders. A journal whose
	// records could not be written stays for the next apply to settle.
	if err := writer.Flush(); err != nil {
		applyErr = errors.Join(applyErr, err)
	} else {
		applyErr = errors.Join(applyErr, runs.Close())
	}
	if rec != nil {
		w.runID, w.recordErr = rec.ID(), rec.Close(ctx.Err() != nil)
	}
	w.applied = a.Values()
	if applyErr == nil && len(w.opts.Targets) == 0 && res != nil && !res.Failed() {
		for _, r := range w.state.Sorted() {
			if w.decider.Leaves(r) && writer.Forget(r.Addr) == nil {
				res.Forgotten = append(res.Forgotten, r.Addr)
			}
		}
	}
	closeErr := writer.Close()
	if applyErr == nil && closeErr == nil && res != nil && !w.scratch {
		closeErr = w.recordLock(res)
	}
	w.saveStatCache()
	if applyErr == nil && closeErr == nil && res != nil && !res.Failed() {
		w.writeMemo()
	}
	if applyErr != nil {
		return res, applyErr
	}
	return res, closeErr
}

func shortLineage(s string) string {
	if len(s) > 8 {
		return s[:8]
	}
	return s
}

// NodeByAddr finds a node from an address a user typed.
func (w *Workspace) NodeByAddr(s string) (*config.Node, error) {
	a, err := addr.Parse(s)
	if err != nil {
		return nil, err
	}
	if n := w.pipeline.Node(a); n != nil {
		return n, nil
	}
	var names []string
	for _, n := range w.pipeline.Nodes {
		names = append(names, n.Addr.String())
	}
	return nil, fmt.Errorf("no node %s in the pipeline%s", s, didYouMean(s, names))
}

// didYouMean names the address closest to s (human.Closest), or says where
// the addresses are listed.
func didYouMean(s string, options []string) string {
	if best := human.Closest(s, options); best != "" {
		return fmt.Sprintf("; did you mean %s?", best)
	}
	return " (kiln state list and kiln graph show the addresses)"
}

// ConfigDigest identifies the configuration a plan was made from: the
// pipeline's files and the variable values given.
func (w *Workspace) ConfigDigest() string {
	var lines []string
	for _, name := range w.pipeline.FileNames {
		b, _ := os.ReadFile(filepath.Join(w.pipeline.Root, name))
		lines = append(lines, "file "+name+" "+hash.Bytes(b).String())
	}
	if b, err := os.ReadFile(lockfile.Path(w.pipeline.Root)); err == nil {
		lines = append(lines, "lock "+hash.Bytes(b).String())
	}
	for _, name := range slices.Sorted(maps.Keys(w.pipeline.Variables)) {
		v := w.pipeline.Variables[name]
		lines = append(lines, "var "+name+" "+hash.Bytes([]byte(v.Value.GoString())).String())
	}
	return hash.Lines(lines...).String()
}

// VarFlags returns the -var values the workspace was opened with.
func (w *Workspace) VarFlags() []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(w.opts.Vars)) {
		out = append(out, k+"="+w.opts.Vars[k])
	}
	return out
}

// VarFiles returns the -var-file paths the workspace was opened with.
func (w *Workspace) VarFiles() []string { return w.opts.VarFiles }

// Pools are the resource pools of this machine for a plan or apply: the
// -resource values (Options.Resources) over the pipeline's pool blocks over
// the NPU devices the first host node reports (healthy ones; the others
// are excluded with the reason), cpu (the CPU count) and mem_mb (the
// memory in MiB). They are read once: a plan and the apply that follows in
// one command see the same pools.
func (w *Workspace) Pools(ctx context.Context) pool.Set {
	if w.pools != nil {
		return w.pools
	}
	src := machineSources(w.opts.Resources)
	src.Specs = map[string]*pool.Spec{}
	for name, b := range w.pipeline.Pools {
		src.Specs[name] = &b.Spec
	}
	for _, n := range w.pipeline.Nodes {
		dr, ok := n.Block.Kind.(kind.DeviceReporter)
		if !ok {
			continue
		}
		if h := w.probeDevices(ctx, n, dr); h != nil {
			src.Host = h
			break
		}
	}
	w.pools = pool.Resolve(src)
	return w.pools
}

// probeDevices probes a node whose kind reports devices (a host's NPUs);
// nil when it reports none.
func (w *Workspace) probeDevices(ctx context.Context, n *config.Node, dr kind.DeviceReporter) *pool.Host {
	ev, diags := w.pipeline.Evaluate(n, plan.NewValues(), "")
	if diags.HasErrors() {
		return nil
	}
	pr, ok := n.Block.Kind.(kind.Prober)
	if !ok {
		return nil
	}
	probe, err := pr.Probe(ctx, &kind.Node{Addr: n.Addr, Config: ev.Config, Root: w.pipeline.Root, Out: w.pipeline.OutPath(n.Addr), State: w.pipeline.StateDir}, nil)
	if err != nil || probe == nil {
		return nil
	}
	return dr.Devices(n.Addr.String(), probe)
}

// traced is the set of node addresses the traced addresses name.
func (w *Workspace) traced(trace []addr.Node) map[string]bool {
	if len(trace) == 0 {
		return nil
	}
	out := map[string]bool{}
	for _, t := range trace {
		for _, n := range w.pipeline.Nodes {
			if n.Addr == t || !t.Key.Set && n.Addr.Block() == t {
				out[n.Addr.String()] = true
			}
		}
	}
	return out
}

// showKey gives debug the lines of each key as they show.
func showKey(debug func(addr.Node, string, []string)) func(addr.Node, string, []hash.Line) {
	if debug == nil {
		return nil
	}
	return func(a addr.Node, key string, lines []hash.Line) {
		text := make([]string, len(lines))
		for i, l := range lines {
			text[i] = l.Show()
		}
		debug(a, key, text)
	}
}
