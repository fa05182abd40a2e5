package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/proc"
	"github.com/kilnbuild/kiln/engine/run/job"
	"github.com/kilnbuild/kiln/engine/slurm"
	"github.com/kilnbuild/kiln/engine/state"
)

// node decides one node now that its dependencies finished, and acts.
// held are the device ids the node holds while it runs, per pool.
func (a *Applier) node(ctx context.Context, n *config.Node, held map[string][]int) NodeResult {
	res := NodeResult{Addr: n.Addr}
	if err := context.Cause(ctx); err != nil {
		res.Outcome, res.Err = Cancelled, err
		return res
	}
	dec := a.Decider.Decide(ctx, n, a.vals)
	res.Action, res.Reasons = dec.Action, dec.Reasons
	if dec.Diags.HasErrors() {
		res.Outcome, res.Err = Failed, &DiagError{Diags: dec.Diags}
		return res
	}
	if a.Options.Decided != nil {
		a.Options.Decided(dec)
	}
	if dec.Blocked != "" && dec.Action != plan.NoOp {
		res.Outcome, res.Err = Failed, fmt.Errorf("cannot run on this machine: %s", dec.Blocked)
		return res
	}
	if dec.Protected {
		res.Outcome, res.Err = Failed, fmt.Errorf("protected: this %s would replace its result; run kiln apply -replace '%s' to allow it", dec.Action.Word(), n.Addr)
		return res
	}
	switch dec.Action {
	case plan.NoOp:
		a.vals.Set(n.Addr, a.Decider.ValueAfter(dec))
		a.temps.markRemoved(n.Addr, dec.TempRemoved)
		res.Outcome, res.Segments = UpToDate, dec.Record.AllSegments()
		if file := plan.FileOf(a.Decider.Pipeline, n); dec.Record.File != file {
			// The block moved to another file, or the record predates
			// records naming their file.
			rec := *dec.Record
			rec.File = file
			_ = a.Writer.Commit(&rec)
		}
		return res
	case plan.Restore:
		if err := a.restore(dec); err == nil {
			a.vals.Set(n.Addr, a.Decider.ValueAfter(dec))
			res.Outcome, res.Segments = Restored, dec.Restore.AllSegments()
			return res
		}
		// A stored result that no longer verifies is rebuilt instead.
		dec.Action = plan.Rebuild
	}
	if r, ok := a.fetch(ctx, dec); ok {
		return r
	}
	// A run reads its upstream results: removed temp ones are rebuilt.
	dec, err := a.prepare(ctx, dec)
	if err != nil {
		res.Outcome, res.Err = Failed, fmt.Errorf("an upstream temp result it needs: %w", err)
		return res
	}
	if dec.Action == plan.NoOp {
		a.vals.Set(n.Addr, a.Decider.ValueAfter(dec))
		res.Action, res.Outcome = dec.Action, UpToDate
		return res
	}
	return a.build(ctx, dec, held)
}

// restore points the node at a stored result with its key.
func (a *Applier) restore(dec *plan.Decision) error {
	stored := dec.Restore
	st := a.Decider.Store
	if stored.Attrs[plan.AttrDigestBy] != "kind" {
		got, _, err := plan.OutputDigest(st, a.Decider.Pipeline.Root, stored.Entry, state.OutputPaths(a.Decider.Pipeline.Root, stored.Outputs), a.Decider.Stat)
		if err != nil || got != stored.Digest {
			return fmt.Errorf("stored result of %s changed", dec.Node.Addr)
		}
	}
	if err := st.Link(dec.Node.Addr.FileName(), stored.Entry); err != nil {
		return err
	}
	rec := *stored
	rec.Addr = dec.Node.Addr.String()
	rec.File = plan.FileOf(a.Decider.Pipeline, dec.Node)
	rec.Failure = nil
	if dec.Key == stored.Key && len(dec.KeyLines) > 0 {
		// The stored result may be another node's with the same key: the
		// lines are the same, but their notes must name this node's
		// upstreams, which later plans match its dependencies against.
		rec.KeyLines = dec.KeyLines
	}
	return a.Writer.Commit(&rec)
}

// build runs the node's kind in a fresh store folder, on the devices it
// holds, and publishes the result.
func (a *Applier) build(ctx context.Context, dec *plan.Decision, held map[string][]int) NodeResult {
	n := dec.Node
	res := NodeResult{Addr: n.Addr, Action: dec.Action, Reasons: dec.Reasons}
	d := a.Decider
	st := d.Store
	unlock := st.LockKey(dec.Key)
	defer unlock()
	service := kind.IsService(dec.Kind)
	if dec.Action == plan.Rebuild || dec.Action == plan.Create || dec.Action == plan.Repair {
		// Another node with the same key may have built, or repaired, the
		// entry meanwhile; restore verifies the stored digest, so a result
		// that is still drifted is rebuilt below.
		stored := d.Records.Stored(dec.Key)
		repairable := dec.Action != plan.Repair || stored != nil && stored.Attrs[plan.AttrDigestBy] != "kind"
		if stored != nil && repairable && !service && !n.Meta.AlwaysRun && !d.Replaced(n) {
			dec.Restore = stored
			if a.restore(dec) == nil {
				a.vals.Set(n.Addr, d.ValueAfter(&plan.Decision{Node: n, Kind: dec.Kind, KindNode: dec.KindNode, Action: plan.Restore, Restore: stored}))
				res.Outcome, res.Segments = Restored, stored.AllSegments()
				return res
			}
		}
	}
	// Every run builds in a fresh folder of its own, beside any good result
	// of the same key (a repair, -replace, always_run): only a complete,
	// hashed result takes its place. A Slurm job an earlier apply left for
	// this key is adopted instead: its run folder is waited on, and the job
	// is never submitted again.
	var entry, dir string
	var resumed bool
	var err error
	// A local run is journaled before its folder is made and anything
	// starts, so that should kiln die, the next apply stops what it left
	// running and removes the folder. A Slurm job's processes run on a
	// compute node, and the Slurm journal names its run: a later apply
	// adopts it, never stops it, so the journal of local runs does not
	// name it.
	var run *state.Run
	begin := func(entry string) error {
		if n.Meta.Executor != "" {
			return nil
		}
		var err error
		run, err = a.Runs.Begin(n.Addr.String(), entry, n.Meta.Resumable)
		return err
	}
	adopted := a.slurm.adoptable(n, dec.Key, st)
	if adopted != nil {
		entry, dir = adopted.Entry, st.RunPath(adopted.Entry)
	} else if entry, dir, resumed, err = a.runFolder(dec, begin); err != nil {
		if run != nil {
			run.End() // journaled, but no folder was made
		}
		res.Outcome, res.Err = Failed, err
		return res
	}
	if n.Meta.Executor != "" {
		return a.execute(ctx, dec, entry, dir, resumed, nil, res, adopted)
	}
	res = a.execute(proc.WithTracker(ctx, run), dec, entry, dir, resumed, held, res, nil)
	if res.Outcome == Started {
		// A service outlives its run: its record, which names its process,
		// is made durable before the journal stops naming it.
		_ = a.Writer.Flush()
	}
	run.End()
	return res
}

// execute runs the node's kind in its run folder, on the devices it holds,
// and publishes the result, or records the failure and removes the folder
// (a resumable node keeps it).
func (a *Applier) execute(ctx context.Context, dec *plan.Decision, entry, dir string, resumed bool, held map[string][]int, res NodeResult, adopted *slurm.Job) NodeResult {
	n := dec.Node
	d := a.Decider
	start := time.Now()
	logPath := RunLogPath(d.Pipeline.StateDir, n.Addr, dec.Key, start)
	log := openLog(logPath, func(line string) { a.Options.Hooks.Output(n.Addr, line) })
	var result *built
	watch, err := watchInputs(d.Pipeline.Root, dec, d.Stat)
	if err == nil {
		LinkLatest(d.Pipeline.StateDir, n.Addr, logPath)
		res.Log = logPath
		if len(held) > 0 {
			res.Devices = held
			if h, ok := a.Options.Hooks.(DeviceHooks); ok {
				h.Devices(n.Addr, held)
			}
		}
		a.Options.Hooks.Running(n.Addr, dec.Action, dec.Reasons)
		if len(held) > 0 {
			fmt.Fprint(log, deviceLogLine(held, a.Options.Pools))
		}
		res.Began = start
		result, res.Attempts, err = a.runKind(ctx, dec, entry, dir, resumed, log, adopted, held)
		res.Duration = time.Since(start)
		if t, ok := a.traces.LoadAndDelete(n.Addr); ok {
			res.Trace = t.(*TraceReport)
		}
		if result != nil && result.remote != nil && result.remote.Started.After(start) {
			// A Slurm job's command began when the job left the queue: the
			// wait before it is the node's turn, not its run.
			res.Began = result.remote.Started
		}
		_ = log.Close()
		if p := log.Problem(); p != nil {
			res.LogErr = p
		}
		if err == nil {
			err = watch.check()
		}
		if err == nil {
			var read atomic.Int64
			err = a.publish(dec, entry, dir, result, start, res.Duration, logPath, held, &read)
			res.BytesHashed = read.Load()
		}
		res.LogTail = log.Tail()
	}
	if err != nil {
		res.Err = err
		res.Outcome = Failed
		if ctx.Err() != nil {
			res.Outcome = Cancelled
		}
		kept := ""
		if n.Meta.Resumable || errors.Is(err, ErrJobLeftRunning) {
			kept = entry
		} else {
			_ = d.Store.RemoveRun(entry)
		}
		a.recordFailure(dec, err, logPath, kept, held, start, time.Since(start))
		return res
	}
	res.LogTail = nil
	res.Outcome = Built
	if earlier := dec.Record.SegmentsIn(entry); len(earlier) > 0 {
		res.Earlier = state.TotalDuration(earlier)
		res.Segments = append(earlier, state.Segment{Started: start.UTC(), Duration: res.Duration, Log: relPath(d.Pipeline.Root, logPath)})
	}
	if kind.IsService(dec.Kind) {
		res.Outcome = Started
	}
	if m, ok := a.mismatches.LoadAndDelete(n.Addr); ok {
		res.LockMismatch = m.(*plan.LockMismatch)
	}
	return res
}

// runFolder is the folder a run of dec's node builds in: for a resumable
// node, the folder an interrupted run with the same key left, unless
// -replace names the node (a corrupt checkpoint is discarded that way);
// otherwise a fresh one. begin journals the run first, before a fresh
// folder is made.
func (a *Applier) runFolder(dec *plan.Decision, begin func(entry string) error) (entry, dir string, resumed bool, err error) {
	st := a.Decider.Store
	if dec.Node.Meta.Resumable && !a.Decider.Replaced(dec.Node) {
		if e := plan.ResumeEntry(dec.Record, dec.Key, st); e != "" {
			return e, st.RunPath(e), true, begin(e)
		}
	}
	entry, dir, err = st.NewRunAfter(dec.Key, begin)
	return entry, dir, false, err
}

// built is what a run made: the kind's result, or, for a node that ran
// elsewhere (a Slurm job, a remote cache), what was hashed there.
type built struct {
	result *kind.Result
	remote *job.Result
	job    *slurm.Job // the Slurm job that made it
	cached bool       // pulled from the remote cache: not pushed back
}

// runKind evaluates the node with its real output folder and runs its kind,
// retrying as configured, each attempt bounded by the node's timeout. A
// node with a Slurm executor runs as a job (the adopted one first) in the
// run folder entry. The pools' variables name the devices it holds; they
// never enter the key.
func (a *Applier) runKind(ctx context.Context, dec *plan.Decision, entry, dir string, resumed bool, log *nodeLog, adopted *slurm.Job, held map[string][]int) (*built, int, error) {
	n := dec.Node
	d := a.Decider
	capacity := a.Options.Pools.Capacity()
	if n.Meta.Executor != "" {
		capacity = nil // a Slurm job gets what it asks for on its compute node
	}
	granted, warnings := grant(n.Meta.Resources, capacity)
	for _, w := range warnings {
		fmt.Fprintf(log, "kiln: warning: %s\n", w)
	}
	ev, err := a.runConfig(dec, dir, granted)
	if err != nil {
		return nil, 0, err
	}
	cfg, _ := ev.Config.UnmarkDeep()
	unpinned := kind.Node{Addr: n.Addr, Config: cfg, Root: d.Pipeline.Root, Out: d.Pipeline.OutPath(n.Addr), State: d.Pipeline.StateDir}
	cfg, err = d.PinConfig(n, cfg, d.Pins[n.Addr.String()])
	if err != nil {
		return nil, 0, fmt.Errorf("the pin in kiln.lock.hcl: %w; run kiln lock -update %s", err, n.Addr)
	}
	base, _ := plan.NodeEnv(n, a.vals, ev)
	env := plan.MergeEnv(base, append(resourceEnv(granted), "KILN_OUT="+dir, state.RunEnv+"="+entry)...)
	env = plan.MergeEnv(env, deviceEnv(held, a.Options.Pools)...)
	remote := d.Pipeline.Executor(n.Meta.Executor) != nil
	sealed, err := a.seal(dec, dir, cfg, !remote)
	if err != nil {
		return nil, 0, err
	}
	defer sealed.remove(a.runTemps)
	if a.traced(n) && !remote {
		defer func() { a.traces.Store(n.Addr, a.traceReport(dec, sealed, log.path)) }()
	}
	var prev *kind.Record
	if dec.Record.Good() {
		prev = d.Records.KindRecord(dec.Record)
	}
	b := &kind.Build{
		Node:     kind.Node{Addr: n.Addr, Config: cfg, Root: d.Pipeline.Root, Out: d.Pipeline.OutPath(n.Addr), State: d.Pipeline.StateDir, Env: base},
		Dir:      dir,
		Resumed:  resumed,
		Env:      env,
		Log:      log,
		Previous: prev,
	}
	if sealed != nil {
		b.Env, b.Shell, b.Sandbox = sealed.env(env), sealed.contract.Shell, sealed.policy
	}
	var lastErr error
	attempts := 0
	for attempt := 0; attempt <= n.Meta.Retries; attempt++ {
		if ctx.Err() != nil {
			break
		}
		attempts++
		if err := startAttempt(b, n, resumed, attempt, lastErr, log); err != nil {
			return nil, attempts, err
		}
		actx, cancel := ctx, context.CancelFunc(func() {})
		// A Slurm job's timeout is its --time, which counts its run and
		// not its wait in the queue: kiln does not time the wait.
		if n.Meta.Timeout > 0 && n.Meta.Executor == "" {
			actx, cancel = context.WithTimeoutCause(ctx, n.Meta.Timeout, fmt.Errorf("timed out after %s", n.Meta.Timeout))
		}
		if e := d.Pipeline.Executor(n.Meta.Executor); e != nil {
			remote, j, err := a.slurm.run(actx, &slurmRun{exec: e, node: n, key: dec.Key, entry: entry, kind: dec.Kind, build: b, log: log, status: a.status(n.Addr), adopted: adopted, version: a.Options.Version})
			adopted = nil // a retry submits a new job
			cancel()
			if err == nil {
				return &built{remote: remote, job: &j}, attempts, nil
			}
			lastErr = err
			continue
		}
		r, err := dec.Kind.Build(actx, b)
		cancel()
		if err == nil {
			if err := sealed.checkResults(n.Addr, d.Pipeline.Root); err != nil {
				return nil, attempts, err
			}
			if err := sealed.checkRefused(n.Addr, d.Pipeline.Root, log.Refused()); err != nil {
				return nil, attempts, err
			}
			return &built{result: keepPins(dec.Kind, &unpinned, r)}, attempts, nil
		}
		lastErr = sealed.explain(err, n.Addr, d.Pipeline.Root, append(log.Refused(), log.Tail()...))
		if cause := context.Cause(actx); cause != nil && ctx.Err() == nil && !errors.Is(err, cause) {
			lastErr = fmt.Errorf("%w (%v)", cause, err)
		}
	}
	if ctx.Err() != nil {
		if errors.Is(lastErr, ErrJobLeftRunning) {
			return nil, attempts, lastErr // its run folder is kept for the next apply
		}
		return nil, attempts, fmt.Errorf("interrupted: %w", context.Cause(ctx))
	}
	return nil, attempts, lastErr
}

// startAttempt readies b for attempt (0 for the first): a command tells a
// resume from a first run by KILN_RESUME (a trainer's --init_from=resume),
// and its attempt by KILN_ATTEMPT. A retry says why it runs, and starts
// afresh, so the result does not depend on what a failed attempt left; a
// resumable node keeps its work.
func startAttempt(b *kind.Build, n *config.Node, resumed bool, attempt int, lastErr error, log io.Writer) error {
	resume := "0"
	if resumed || attempt > 0 && n.Meta.Resumable {
		resume = "1"
	}
	b.Env = plan.MergeEnv(b.Env, "KILN_RESUME="+resume, "KILN_ATTEMPT="+strconv.Itoa(attempt+1))
	if attempt == 0 {
		return nil
	}
	fmt.Fprintf(log, "kiln: attempt %d of %d after: %v\n", attempt+1, n.Meta.Retries+1, lastErr)
	if n.Meta.Resumable {
		return nil
	}
	return emptyDir(b.Dir)
}

// runConfig is the node's configuration for a run in dir, given granted.
// A node that reads nothing of self evaluates for its run as it did when
// it was decided, against the same upstream values (every one finished
// before the decision), so the decision's evaluation is used; it is the
// unpinned one when the lock pins nothing of the node. Otherwise the node is
// evaluated again with its real output folder and what it was given.
func (a *Applier) runConfig(dec *plan.Decision, dir string, granted map[string]int64) (*config.Evaluated, error) {
	n := dec.Node
	if dec.Config != nil && !n.ReadsSelf() && len(a.Decider.Pins[n.Addr.String()]) == 0 {
		return dec.Config, nil
	}
	ev, diags := a.Decider.Pipeline.EvaluateRun(n, a.vals, dir, granted)
	if diags.HasErrors() {
		return nil, &DiagError{Diags: diags}
	}
	return ev, nil
}

// publish hashes a successful run in the run folder entry (at dir), points
// the stable path at it and commits the record. A result hashed where it
// was made (a Slurm job's, a remote cache's) is not read again. A result the
// node had under the same key gives way and its folder is removed, unless
// another node's record uses it. The bytes read to hash it are added to
// read.
func (a *Applier) publish(dec *plan.Decision, entry, dir string, b *built, start time.Time, took time.Duration, logPath string, held map[string][]int, read *atomic.Int64) error {
	d := a.Decider
	n := dec.Node
	var digest string
	var outRecs []state.Output
	var attrs map[string]string
	var err error
	host := a.Options.Host
	if b.remote != nil {
		digest, outRecs, attrs = b.remote.Digest, b.remote.Outputs, maps.Clone(b.remote.Attrs)
		if attrs == nil {
			attrs = map[string]string{}
		}
		if b.remote.Host != "" {
			host = b.remote.Host
		}
		if b.job != nil {
			attrs[AttrSlurmJob] = b.job.ID
			attrs[AttrExecutor] = n.Meta.Executor
			if q := b.remote.Started.Sub(b.job.Submitted); q > 0 && !b.job.Submitted.IsZero() {
				attrs[AttrSlurmQueued] = strconv.FormatFloat(q.Seconds(), 'f', 1, 64)
			}
			if !b.remote.Started.IsZero() && b.remote.Ended.After(b.remote.Started) {
				took = b.remote.Ended.Sub(b.remote.Started) // the run, not the wait in the queue
			}
		}
	} else if digest, outRecs, attrs, err = hashResult(d.Pipeline.Root, d.Pipeline.StateDir, dir, b.result, d.Stat, read); err != nil {
		return err
	}
	// Read again where it was hashed elsewhere (a Slurm job's folder on the
	// shared disk, a remote cache's result fetched into dir).
	refs, scanned := resultRefs(d.Pipeline, n, a.record, dir, outRecs, attrs)
	key, keyLines := dec.Key, dec.KeyLines
	if pins := plan.RecordedPins(attrs); len(pins) > 0 && !maps.Equal(pins, d.Pins[n.Addr.String()]) {
		// The build resolved a pin the lock did not hold: record the key
		// of the pinned configuration, which the next plan computes.
		if key, keyLines, err = d.PinnedKey(dec, a.vals, pins); err != nil {
			return fmt.Errorf("the key with the resolved pins: %w", err)
		}
	}
	if err := a.checkLock(n, key, digest, d.Store.RunPath(entry)); err != nil {
		return err
	}
	rec := &state.Record{
		Addr: n.Addr.String(), Kind: dec.Kind.Name(), Key: key, KeyLines: keyLines,
		Digest: digest, Entry: entry, Outputs: outRecs, Attrs: attrs,
		Started: start.UTC(), Duration: took, Resources: n.Meta.Resources, Devices: held,
		Log: relPath(d.Pipeline.Root, logPath), Host: host, KilnVersion: a.Options.Version,
		File: plan.FileOf(d.Pipeline, n), Vars: dec.Vars, Refs: refs, RefsScanned: scanned,
	}
	if earlier := dec.Record.SegmentsIn(entry); len(earlier) > 0 {
		// A resumed result is the work of every segment in its folder.
		rec.Segments = append(earlier, state.Segment{Started: rec.Started, Duration: took, Log: rec.Log})
		rec.Started, rec.Duration = earlier[0].Started, state.TotalDuration(rec.Segments)
	}
	if err := d.Store.Link(n.Addr.FileName(), entry); err != nil {
		return fmt.Errorf("publishing the result: %w", err)
	}
	if err := a.Writer.Commit(rec); err != nil {
		return err
	}
	if kept, ok := a.Writer.Record(rec.Addr); ok {
		// The state keeps its own copy; the index of stored results shares
		// it rather than keeping a second one for every node built.
		rec = kept
	}
	d.Records.Put(rec)
	if old := dec.Record; old.Good() && old.Key == rec.Key && old.Entry != entry && state.ValidEntry(old.Entry) && !a.Writer.Referenced(old.Entry) {
		_ = d.Store.RemoveRun(old.Entry)
	}
	value := d.ValueAfter(&plan.Decision{Node: n, Kind: dec.Kind, KindNode: dec.KindNode, Action: plan.Restore, Restore: rec})
	a.vals.Set(n.Addr, value)
	if !b.cached && rec.Key == dec.Key {
		a.cache.push(n, rec, dir, d.Stat)
	}
	return nil
}

// keepPins records in r.Attrs the pins the build resolved, asked of the
// kind with the configuration as it was before the lock's pins applied.
func keepPins(k kind.Kind, unpinned *kind.Node, r *kind.Result) *kind.Result {
	pk, ok := k.(kind.Pinner)
	if !ok {
		return r
	}
	if r == nil {
		r = &kind.Result{}
	}
	pins := pk.Pins(unpinned, r)
	if len(pins) == 0 {
		return r
	}
	attrs := maps.Clone(r.Attrs)
	if attrs == nil {
		attrs = map[string]string{}
	}
	for name, v := range pins {
		attrs[plan.AttrPinPrefix+name] = v
	}
	r.Attrs = attrs
	return r
}

// recordFailure keeps the node's last good result and notes the failure,
// with the run folder kept to resume in, if any, and the devices it held.
func (a *Applier) recordFailure(dec *plan.Decision, err error, logPath, kept string, held map[string][]int, start time.Time, took time.Duration) {
	var rec state.Record
	if dec.Record != nil {
		rec = *dec.Record
	} else {
		rec = state.Record{Addr: dec.Node.Addr.String(), Kind: dec.Kind.Name()}
	}
	rec.File = plan.FileOf(a.Decider.Pipeline, dec.Node)
	code := -1
	var ee interface{ ExitCode() int }
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	}
	rec.Failure = &state.Failure{Key: dec.Key, Error: err.Error(), ExitCode: code, At: time.Now().UTC(), Log: relPath(a.Decider.Pipeline.Root, logPath), Entry: kept, Devices: held}
	if kept != "" {
		// The folder is kept to resume in: the next run adds to its work
		// (a Slurm job left running goes on with its own).
		rec.Failure.Segments = dec.Record.SegmentsIn(kept)
		if !errors.Is(err, ErrJobLeftRunning) {
			seg := state.Segment{Started: start.UTC(), Duration: took, Log: rec.Failure.Log}
			rec.Failure.Segments = append(rec.Failure.Segments, seg)
		}
	}
	_ = a.Writer.Commit(&rec)
}

func relPath(root, p string) string {
	if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return p
}

// emptyDir removes everything inside dir, keeping dir.
func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		_ = filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				_ = os.Chmod(q, 0o755)
			}
			return nil
		})
		if err := os.RemoveAll(p); err != nil {
			return err
		}
	}
	return nil
}
