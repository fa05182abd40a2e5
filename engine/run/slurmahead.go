package run

import (
	"bufio"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/filelock"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/run/sched"
	"github.com/kilnbuild/kiln/engine/slurm"
)

// Submitting ahead (submit_ahead, Snakemake's --immediate-submit): a Slurm
// node whose upstreams are all succeeded or Slurm jobs of this apply is
// queued the moment the last of those jobs is submitted, with
// --dependency=afterok on them, so that its queue wait overlaps their run,
// and so on down a chain. Its key is not known yet — it holds the
// upstreams' digests — so the job is queued without its node: its script
// is `kiln job run -await SPEC`, which waits for SPEC to appear. Once the
// upstreams have succeeded, the scheduler starts the node as any other;
// when it needs a job, kiln writes SPEC into the queued job's folder and
// journals the job under the node's key, from where waiting, cancelling
// and adopting go on as for a job submitted then.
//
// A queued job kiln ends up not needing — the node turned out up to date,
// was restored, failed before it ran, was skipped after an upstream
// failed, or its request changed — is cancelled, and with it everything
// queued after it; so is what was queued after an upstream that is
// submitted again (NODE_FAIL). A queued job that ended without running
// its node (it waited in vain: kiln was gone) makes kiln submit the node
// afresh. A kiln killed with queued jobs left leaves their list (below,
// locked while it runs), and the next apply cancels those that were never
// handed a node; a queued job also gives up by itself after aheadAwait.
//
// Submitting ahead is off for an executor with max_jobs, and with -jobs:
// queued jobs would go past the bound, which kiln holds by submitting a
// node only when the scheduler admits it. The instances of a for_each or
// count block are not queued ahead where they may form an array job: a
// thousand samples queued ahead would be a thousand sbatch calls, against
// one array once they are ready.

// aheadAwait bounds how long a job queued ahead waits for its node once it
// started: the time kiln takes to notice its upstreams ended, hash their
// results and decide the node, with room to spare.
const aheadAwait = 15 * time.Minute

// aheadJob is one job queued ahead of its node.
type aheadJob struct {
	id    string
	dir   string   // its folder: spec.json goes there when kiln hands it its node
	args  string   // its sbatch arguments, but --dependency, to tell whether it still fits
	after []string // the jobs it starts after
}

// aheads are an apply's jobs queued ahead, and the job ids of the nodes
// that have one, which later nodes may be queued after.
type aheads struct {
	mu    sync.Mutex
	queue map[string]*aheadJob // by node address, until handed its node or cancelled
	jobOf map[string]string    // node address → id of its job, while it is unfinished
	list  *filelock.Lock       // this apply's list of queued jobs
}

// jobSubmitted records that n's node has job id, and lets its dependents
// be queued after it.
func (x *slurmExec) jobSubmitted(n *config.Node, id string) {
	x.aheads.mu.Lock()
	if x.aheads.jobOf == nil {
		x.aheads.jobOf = map[string]string{}
	}
	x.aheads.jobOf[n.Addr.String()] = id
	x.aheads.mu.Unlock()
	if x.onSubmit != nil {
		x.onSubmit(n)
	}
}

// jobEnded forgets n's job, once it has ended.
func (x *slurmExec) jobEnded(n *config.Node) {
	x.aheads.mu.Lock()
	delete(x.aheads.jobOf, n.Addr.String())
	x.aheads.mu.Unlock()
}

// unfinishedJob is the id of n's job while it is unfinished, or "".
func (x *slurmExec) unfinishedJob(n *config.Node) string {
	x.aheads.mu.Lock()
	defer x.aheads.mu.Unlock()
	return x.aheads.jobOf[n.Addr.String()]
}

// canQueueAhead reports whether nodes of e may be queued ahead.
func (x *slurmExec) canQueueAhead(e *config.Executor) bool {
	return e != nil && e.Ahead && e.MaxJobs == 0 && !x.bounded
}

// queueAhead queues n's job after the jobs after, unless it has one.
func (x *slurmExec) queueAhead(n *config.Node, e *config.Executor, root string, after []string) {
	at := n.Addr.String()
	aj := &aheadJob{after: after}
	x.aheads.mu.Lock()
	if x.aheads.queue[at] != nil {
		x.aheads.mu.Unlock()
		return
	}
	if x.aheads.queue == nil {
		x.aheads.queue = map[string]*aheadJob{}
	}
	x.aheads.queue[at] = aj // held while sbatch runs: two upstreams may get here at once
	x.aheads.mu.Unlock()

	aj.dir = filepath.Join(x.shared(e), n.Addr.FileName()+"-ahead-"+strconv.FormatInt(time.Now().UnixNano(), 36))
	r := &slurmRun{exec: e, node: n, build: &kind.Build{Node: kind.Node{Root: root}}}
	req := slurmRequest(r, aj.dir)
	aj.args = quoteArgs(req.Args())
	req.After = after
	req.Command = []string{x.kiln(e), "job", "run", "-await", aheadAwait.String(), filepath.Join(aj.dir, "spec.json")}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var id string
	err := os.MkdirAll(aj.dir, 0o755)
	if err == nil {
		id, err = x.opts.Cluster.Submit(ctx, req, filepath.Join(aj.dir, "job.sh"))
	}
	x.aheads.mu.Lock()
	mine := x.aheads.queue[at] == aj
	if err != nil || !mine {
		// An upstream that already left the controller, or a cluster that
		// refuses dependencies: the node is submitted when it runs. Or the
		// node was decided while sbatch ran, and needs no job queued.
		if mine {
			delete(x.aheads.queue, at)
		}
		x.aheads.mu.Unlock()
		if err == nil {
			_ = x.opts.Cluster.Cancel(ctx, id)
		}
		_ = os.RemoveAll(aj.dir)
		return
	}
	aj.id = id
	x.recordAhead(id, aj.dir)
	x.aheads.mu.Unlock()
	x.jobSubmitted(n, id)
}

// takeAhead returns the job queued ahead for r's node, now to be handed
// its node, when its request still fits; one that does not fit is
// cancelled.
func (x *slurmExec) takeAhead(r *slurmRun) *aheadJob {
	at := r.node.Addr.String()
	x.aheads.mu.Lock()
	aj := x.aheads.queue[at]
	delete(x.aheads.queue, at)
	x.aheads.mu.Unlock()
	if aj == nil || aj.id == "" {
		return nil // none, or still being submitted: queueAhead cancels it
	}
	if quoteArgs(slurmRequest(r, aj.dir).Args()) != aj.args {
		fmt.Fprintf(r.log, "kiln: cancelling Slurm job %s, queued ahead with another request\n", aj.id)
		x.cancelAhead(aj)
		return nil
	}
	return aj
}

// dropAhead cancels the job queued ahead for the node at, if it has one
// and was never handed its node, and what was queued after it.
func (x *slurmExec) dropAhead(at string) {
	x.aheads.mu.Lock()
	aj := x.aheads.queue[at]
	delete(x.aheads.queue, at)
	x.aheads.mu.Unlock()
	if aj != nil && aj.id != "" {
		x.cancelAhead(aj)
	}
}

// dropAheadAfter cancels what was queued after job id (it ended, and is
// being submitted again as another job).
func (x *slurmExec) dropAheadAfter(id string) {
	for _, at := range x.queuedAfter(id) {
		x.dropAhead(at)
	}
}

// queuedAfter names the nodes whose queued jobs start after job id.
func (x *slurmExec) queuedAfter(id string) []string {
	x.aheads.mu.Lock()
	defer x.aheads.mu.Unlock()
	var ats []string
	for at, aj := range x.aheads.queue {
		if slices.Contains(aj.after, id) {
			ats = append(ats, at)
		}
	}
	return ats
}

// cancelAhead cancels a queued job and what was queued after it.
func (x *slurmExec) cancelAhead(aj *aheadJob) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_ = x.opts.Cluster.Cancel(ctx, aj.id)
	_ = os.RemoveAll(aj.dir)
	x.dropAheadAfter(aj.id)
}

// dropAllAhead cancels every queued job no node took: the apply ends.
func (x *slurmExec) dropAllAhead() {
	x.aheads.mu.Lock()
	var ats []string
	for at := range x.aheads.queue {
		ats = append(ats, at)
	}
	list := x.aheads.list
	x.aheads.list = nil
	x.aheads.mu.Unlock()
	for _, at := range ats {
		x.dropAhead(at)
	}
	if list != nil {
		_ = os.Remove(list.File().Name())
		_ = list.Unlock()
	}
}

// aheadDir holds one list per running apply of the jobs it queued ahead,
// each locked by its apply.
func (x *slurmExec) aheadDir() string { return filepath.Join(x.stateDir, "slurm", "ahead") }

// recordAhead appends a queued job to this apply's list, creating and
// locking the list first. Called with x.aheads.mu held.
func (x *slurmExec) recordAhead(id, dir string) {
	if x.aheads.list == nil {
		if err := os.MkdirAll(x.aheadDir(), 0o755); err != nil {
			return
		}
		l, err := filelock.TryLock(filepath.Join(x.aheadDir(), strconv.Itoa(os.Getpid())+"-"+strconv.FormatInt(time.Now().UnixNano(), 36)+".list"))
		if err != nil {
			return
		}
		x.aheads.list = l
	}
	_, _ = fmt.Fprintf(x.aheads.list.File(), "%s %s\n", id, dir)
}

// cancelLeftAhead cancels the queued jobs that applies which died left
// without a node: their lists are no longer locked.
func (x *slurmExec) cancelLeftAhead(ctx context.Context) {
	des, err := os.ReadDir(x.aheadDir())
	if err != nil {
		return
	}
	for _, de := range des {
		path := filepath.Join(x.aheadDir(), de.Name())
		l, err := filelock.TryLock(path)
		if err != nil {
			continue // its apply runs
		}
		var ids []string
		sc := bufio.NewScanner(l.File())
		for sc.Scan() {
			id, dir, ok := strings.Cut(sc.Text(), " ")
			if ok && !exists(filepath.Join(dir, "spec.json")) {
				ids = append(ids, id)
			}
		}
		// Best effort: a job that ended already is not cancelled, and one
		// that is missed gives up by itself after aheadAwait.
		_ = x.opts.Cluster.Cancel(ctx, ids...)
		_ = os.Remove(path)
		_ = l.Unlock()
	}
}

// hand gives the job queued ahead for r's node its node: journaled under
// the node's key first, so that a kiln that dies now leaves a job the next
// apply adopts, then the spec the job waits for.
func (x *slurmExec) hand(ctx context.Context, r *slurmRun, aj *aheadJob, submission int) (slurm.Job, error) {
	b := r.build
	j := slurm.Job{Key: r.key, Addr: r.node.Addr.String(), ID: aj.id, Dir: aj.dir, Run: b.Dir, Entry: r.entry, Submitted: time.Now().UTC(), Submissions: submission, Ahead: true}
	if r.entry != "" {
		if err := x.journal.Put(j); err != nil {
			x.cancelAhead(aj)
			return slurm.Job{}, fmt.Errorf("journaling Slurm job %s (cancelled it): %w", aj.id, err)
		}
	}
	if err := x.writeSpec(r, filepath.Join(aj.dir, "spec.json"), filepath.Join(aj.dir, "result.json")); err != nil {
		_ = x.journal.Remove(r.key)
		x.cancelAhead(aj)
		return slurm.Job{}, err
	}
	fmt.Fprintf(r.log, "kiln: handed the node to Slurm job %s, queued ahead after job %s (sbatch %s)\n", aj.id, strings.Join(aj.after, ", "), aj.args)
	return j, nil
}

// graphForAhead keeps what queueAfter needs of the apply's static graph,
// when a Slurm executor may queue nodes ahead.
func (a *Applier) graphForAhead(tasks []sched.Task, verts []int) {
	a.slurm.bounded = a.Options.Jobs > 0
	if !slices.ContainsFunc(slices.Collect(maps.Values(a.Decider.Pipeline.Executors)), a.slurm.canQueueAhead) {
		return
	}
	a.slurm.onSubmit = a.queueAfter
	a.taskOf = make(map[string]int, len(verts))
	a.deps = make([][]int, len(tasks))
	a.dependents = make([][]int, len(tasks))
	for t, v := range verts {
		a.taskOf[a.DAG.Nodes[v].Addr.String()] = t
		a.deps[t] = tasks[t].Deps
		for _, d := range tasks[t].Deps {
			a.dependents[d] = append(a.dependents[d], t)
		}
	}
}

// queueAfter queues ahead the Slurm nodes that depend on n, whose job was
// just submitted, where every other upstream of theirs has succeeded or
// has an unfinished job too (this is what runs down a chain: each node
// queued is a submitted job for the next).
func (a *Applier) queueAfter(n *config.Node) {
	t, ok := a.taskOf[n.Addr.String()]
	if !ok {
		return
	}
	for _, d := range a.dependents[t] {
		dn := a.task(d).node
		e := a.Decider.Pipeline.Executor(dn.Meta.Executor)
		if dn.Placeholder() || !a.slurm.canQueueAhead(e) || joinsArrays(e, dn) {
			continue // a fan-out's instances go as an array job once ready, not one by one ahead
		}
		var after []string
		for _, up := range a.deps[d] {
			if a.succeeded(up) {
				continue
			}
			id := a.slurm.unfinishedJob(a.task(up).node)
			if id == "" {
				after = nil
				break
			}
			after = append(after, id)
		}
		if len(after) > 0 {
			a.slurm.queueAhead(dn, e, a.Decider.Pipeline.Root, after)
		}
	}
}

// succeeded reports whether task t has finished with a result.
func (a *Applier) succeeded(t int) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch a.tasks[t].result.Outcome {
	case Built, Restored, UpToDate:
		return true
	}
	return false
}
