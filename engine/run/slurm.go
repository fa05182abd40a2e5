package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/human"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/run/job"
	"github.com/kilnbuild/kiln/engine/slurm"
	"github.com/kilnbuild/kiln/engine/state"
)

// SlurmOptions configure the Slurm executor of an apply.
type SlurmOptions struct {
	// Kiln is the kiln binary the jobs run (`kiln job run SPEC`), as the
	// compute nodes see it; an executor's kiln attribute overrides it.
	Kiln string
	// Cluster runs the Slurm commands; nil means Slurm on PATH.
	Cluster *slurm.Cluster
}

// slurmExec runs nodes as Slurm batch jobs for one apply. Jobs are
// journaled (state/slurm/journal/KEY.json) from the moment sbatch answers
// until their result is settled, so that a later apply adopts a job a dead
// kiln left instead of submitting it again.
type slurmExec struct {
	opts     SlurmOptions
	stateDir string
	journal  *slurm.Journal
	arrays   arrays
	aheads   aheads
	// onSubmit is told of every node whose job was submitted or adopted,
	// to queue its dependents ahead.
	onSubmit func(*config.Node)
	bounded  bool // -jobs or max_jobs bound the jobs: nothing is queued ahead

	mu       sync.Mutex
	watchers map[time.Duration]*slurm.Watcher // by poll interval
}

func newSlurmExec(stateDir string, o SlurmOptions) *slurmExec {
	if o.Cluster == nil {
		o.Cluster = &slurm.Cluster{}
	}
	return &slurmExec{opts: o, stateDir: stateDir, journal: SlurmJournal(stateDir), watchers: map[time.Duration]*slurm.Watcher{}}
}

// SlurmJournal is the journal of the Slurm jobs an apply in stateDir
// submitted and has not settled.
func SlurmJournal(stateDir string) *slurm.Journal {
	return &slurm.Journal{Dir: filepath.Join(stateDir, "slurm", "journal")}
}

func (x *slurmExec) watcher(poll time.Duration) *slurm.Watcher {
	x.mu.Lock()
	defer x.mu.Unlock()
	w := x.watchers[poll]
	if w == nil {
		w = &slurm.Watcher{Cluster: x.opts.Cluster, Interval: poll}
		x.watchers[poll] = w
	}
	return w
}

// Record attributes of a result a Slurm job made.
const (
	AttrSlurmJob    = "kiln.slurm.job"
	AttrSlurmQueued = "kiln.slurm.queued_s" // from submission to the start of the node's command
	AttrExecutor    = "kiln.executor"
)

// adoptable returns the job an earlier apply journaled for n's key, when n
// runs on Slurm and the job's run folder is still there: the run to wait
// on instead of submitting a new one. nil otherwise.
func (x *slurmExec) adoptable(n *config.Node, key string, st *state.Store) *slurm.Job {
	if n.Meta.Executor == "" {
		return nil
	}
	j, ok, err := x.journal.Get(key)
	if err != nil || !ok {
		return nil
	}
	if !st.Exists(j.Entry) || st.RunPath(j.Entry) != j.Run {
		_ = x.journal.Remove(key)
		return nil
	}
	return &j
}

// slurmRun is one node's run on a Slurm executor.
type slurmRun struct {
	exec    *config.Executor
	node    *config.Node
	key     string
	entry   string // the run folder's store entry; "" for a scratch run (apply -check), not journaled
	kind    kind.Kind
	build   *kind.Build
	log     io.Writer
	status  func(string) // the job's state, for the live status
	adopted *slurm.Job   // a job a previous apply submitted
	version string       // kiln's, written into the spec
	fresh   bool         // submit a job of its own: no array, nothing queued ahead
}

// run submits the node's job (or takes the adopted one), waits for it and
// returns what the job reported and the job. On ctx's end the job is
// cancelled and waited for until it has left the queue.
func (x *slurmExec) run(ctx context.Context, r *slurmRun) (*job.Result, slurm.Job, error) {
	var j slurm.Job
	if r.adopted != nil {
		j = *r.adopted
		fmt.Fprintf(r.log, "kiln: adopting Slurm job %s, submitted %s by an earlier apply\n", j.ID, j.Submitted.Local().Format(time.DateTime))
		x.jobSubmitted(r.node, j.ID)
	} else {
		var err error
		if j, err = x.submit(ctx, r, 1); err != nil {
			return nil, slurm.Job{}, err
		}
	}
	for {
		st, err := x.wait(ctx, r, j)
		if err != nil {
			return nil, j, err
		}
		res, again, err := x.settle(r, j, st)
		submissions := j.Submissions + 1
		switch {
		case err != nil && j.Ahead && !exists(filepath.Join(j.Dir, "result.json")):
			fmt.Fprintf(r.log, "kiln: Slurm job %s, queued ahead, ended %s without running the node; submitting the node now\n", j.ID, st)
			submissions = j.Submissions
		case !again:
			x.jobEnded(r.node)
			_ = x.journal.Remove(r.key)
			return res, j, err
		default:
			fmt.Fprintf(r.log, "kiln: Slurm job %s ended %s; submitting it again (%d of %d requeues)\n", j.ID, st, j.Submissions, r.exec.Requeue)
		}
		x.dropAheadAfter(j.ID)
		if err := emptyDir(r.build.Dir); err != nil {
			return nil, j, err
		}
		r.fresh = true
		if j, err = x.submit(ctx, r, submissions); err != nil {
			x.jobEnded(r.node)
			return nil, j, err
		}
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// submit writes the job's spec and script, submits it and journals it. A
// node queued ahead hands its spec to that job instead (slurmahead.go),
// and an instance's first submission joins an array job (slurmarray.go).
func (x *slurmExec) submit(ctx context.Context, r *slurmRun, submission int) (slurm.Job, error) {
	if !r.fresh {
		if aj := x.takeAhead(r); aj != nil {
			return x.hand(ctx, r, aj, submission)
		}
	}
	j, err := x.submitNew(ctx, r, submission)
	if err == nil {
		x.jobSubmitted(r.node, j.ID)
	}
	return j, err
}

// submitNew submits a new job for r.
func (x *slurmExec) submitNew(ctx context.Context, r *slurmRun, submission int) (slurm.Job, error) {
	b := r.build
	var arr *array
	var elem *element
	var jobDir string
	if !r.fresh && joinsArrays(r.exec, r.node) {
		var err error
		if arr, elem, err = x.join(r); err != nil {
			return slurm.Job{}, err
		}
		jobDir = filepath.Join(arr.dir, strconv.Itoa(elem.index))
	} else {
		// A folder per submission: a result file of an earlier job is
		// never taken for this one's.
		jobDir = filepath.Join(x.shared(r.exec), r.node.Addr.FileName()+"-"+human.Short(r.key)+"-"+strconv.FormatInt(time.Now().UnixNano(), 36))
		if err := os.MkdirAll(jobDir, 0o755); err != nil {
			return slurm.Job{}, fmt.Errorf("the Slurm job folder: %w", err)
		}
	}
	specPath := filepath.Join(jobDir, "spec.json")
	err := x.writeSpec(r, specPath, filepath.Join(jobDir, "result.json"))
	if arr != nil {
		x.written(arr, elem, err)
	}
	if err != nil {
		return slurm.Job{}, err
	}
	var id, how string
	if arr != nil {
		if id, err = x.awaitArray(ctx, arr, elem); err != nil {
			return slurm.Job{}, err
		}
		how = fmt.Sprintf("element %d of array job %s (sbatch %s)", elem.index, arr.id, quoteArgs(arr.req.Args()))
		if arr.single != "" {
			how = "(sbatch " + quoteArgs(arr.req.Args()) + ")"
		}
	} else {
		req := slurmRequest(r, jobDir)
		req.Command = []string{x.kiln(r.exec), "job", "run", specPath}
		if id, err = x.opts.Cluster.Submit(ctx, req, filepath.Join(jobDir, "job.sh")); err != nil {
			return slurm.Job{}, fmt.Errorf("submitting the Slurm job: %w", err)
		}
		how = "(sbatch " + quoteArgs(req.Args()) + ")"
	}
	j := slurm.Job{Key: r.key, Addr: r.node.Addr.String(), ID: id, Dir: jobDir, Run: b.Dir, Entry: r.entry, Submitted: time.Now().UTC(), Submissions: submission}
	if r.entry != "" {
		if err := x.journal.Put(j); err != nil {
			// Without the journal a dead kiln could not find the job again:
			// better not to run it at all.
			_ = x.opts.Cluster.Cancel(context.WithoutCancel(ctx), id)
			return slurm.Job{}, fmt.Errorf("journaling Slurm job %s (cancelled it): %w", id, err)
		}
	}
	fmt.Fprintf(r.log, "kiln: submitted Slurm job %s %s\n", id, how)
	return j, nil
}

// writeSpec writes what `kiln job run` needs to run r's node.
func (x *slurmExec) writeSpec(r *slurmRun, specPath, resultPath string) error {
	b := r.build
	spec := &job.Spec{
		KilnVersion: r.version, Addr: r.node.Addr.String(), Kind: r.kind.Name(), KindVersion: r.kind.Version(), Key: r.key,
		Root: b.Root, Out: b.Out, State: b.State, Dir: b.Dir, Resumed: b.Resumed, Env: b.Env,
		PassEnv: jobPassEnv, Previous: b.Previous, Result: resultPath,
		Shell: b.Shell, Sealed: b.Shell != nil, Sandbox: b.Sandbox,
	}
	if err := spec.SetConfig(b.Config); err != nil {
		return fmt.Errorf("encoding the node for its job: %w", err)
	}
	return job.WriteSpec(specPath, spec)
}

// kiln is the kiln binary e's jobs run.
func (x *slurmExec) kiln(e *config.Executor) string {
	if e.Kiln != "" {
		return e.Kiln
	}
	return x.opts.Kiln
}

func (x *slurmExec) shared(e *config.Executor) string {
	if e.Shared != "" {
		return e.Shared
	}
	return filepath.Join(x.stateDir, "slurm", "jobs")
}

// slurmRequest is the sbatch request of a node: its address as job name,
// --gres from its resources (the accelerator as the executor's GRES, cpu
// as --cpus-per-task, mem_mb as --mem), --time from its timeout, the shape of its slurm
// block, and the executor's partition, account, qos and flags.
func slurmRequest(r *slurmRun, jobDir string) *slurm.Request {
	e, n := r.exec, r.node
	req := &slurm.Request{
		Name: n.Addr.String(), Partition: e.Partition, Account: e.Account, QOS: e.QOS,
		Time: n.Meta.Timeout, Chdir: r.build.Root, Output: filepath.Join(jobDir, "job.out"),
		Flags: slices.Clone(e.Flags),
	}
	for name, amount := range n.Meta.Resources {
		switch name {
		case "cpu":
			req.CPUsPerTask = int(amount)
		case "mem_mb":
			req.Mem = strconv.FormatInt(amount, 10) + "M"
		case "npu", "gpu":
			if req.GRES == nil {
				req.GRES = map[string]int64{}
			}
			req.GRES[e.GRES] += amount
		default:
			if req.GRES == nil {
				req.GRES = map[string]int64{}
			}
			req.GRES[name] += amount
		}
	}
	if s := n.Meta.Slurm; s != nil {
		req.Nodes, req.NTasksPerNode = s.Nodes, s.NTasksPerNode
		if s.Mem != "" {
			req.Mem = s.Mem
		}
		if s.CPUsPerTask > 0 {
			req.CPUsPerTask = s.CPUsPerTask
		}
		req.Flags = append(req.Flags, s.Flags...)
	}
	return req
}

// wait follows the job until it is final, streaming its output file into
// the node's log and its state into the live status. When ctx ends first,
// the job is cancelled and waited for.
func (x *slurmExec) wait(ctx context.Context, r *slurmRun, j slurm.Job) (slurm.Status, error) {
	w := x.watcher(r.exec.Poll)
	out := &slurm.Follow{Path: filepath.Join(j.Dir, "job.out")}
	shown, problem := "", ""
	st, err := w.Wait(ctx, j.ID, func(s slurm.Status, err error) {
		_ = out.Copy(r.log)
		if err != nil {
			if p := slurm.Problem(err); p != problem {
				problem = p
				fmt.Fprintf(r.log, "kiln: asking Slurm about job %s: %s (still waiting)\n", j.ID, p)
			}
			return
		}
		problem = ""
		if now := s.String(); now != shown {
			shown = now
			if r.status != nil {
				r.status("Slurm job " + j.ID + " " + now)
			}
		}
	})
	var d Detacher
	if err != nil && errors.As(context.Cause(ctx), &d) && d.DetachJobs() {
		fmt.Fprintf(r.log, "kiln: leaving Slurm job %s running (%v); the next kiln apply adopts it\n", j.ID, context.Cause(ctx))
		return slurm.Status{}, fmt.Errorf("%w: Slurm job %s: %w", ErrJobLeftRunning, j.ID, err)
	}
	if err != nil {
		// Interrupted or timed out: the job goes too, and kiln waits until
		// it has left the queue.
		stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
		defer cancel()
		if cerr := w.CancelAndWait(stop, j.ID); cerr != nil {
			fmt.Fprintf(r.log, "kiln: cancelling Slurm job %s: %v; check squeue -j %s\n", j.ID, cerr, j.ID)
		} else {
			fmt.Fprintf(r.log, "kiln: cancelled Slurm job %s\n", j.ID)
			_ = x.journal.Remove(r.key)
		}
		_ = out.Copy(r.log)
		return slurm.Status{}, err
	}
	_ = out.Copy(r.log)
	return st, nil
}

// Detacher is implemented by the cause of a cancelled apply that ends kiln
// but not its Slurm jobs: a hang-up (the SSH session dropped). The jobs stay
// journaled and the next apply adopts them.
type Detacher interface {
	DetachJobs() bool
}

// ErrJobLeftRunning is the error of a node whose Slurm job kiln left running
// when it was stopped (see Detacher); its run folder is kept.
var ErrJobLeftRunning = errors.New("left running")

// errJobFailed marks failures that the job itself reported.
var errJobFailed = errors.New("the Slurm job failed")

// settle turns a final job state into the node's outcome; again is true
// when the job is to be submitted once more (NODE_FAIL, PREEMPTED).
func (x *slurmExec) settle(r *slurmRun, j slurm.Job, st slurm.Status) (res *job.Result, again bool, err error) {
	res, ok, rerr := job.ReadResult(filepath.Join(j.Dir, "result.json"))
	if rerr != nil {
		return nil, false, rerr
	}
	id := j.ID
	switch st.State {
	case slurm.Completed, slurm.Failed, slurm.Unknown:
		switch {
		case ok && res.OK:
			return res, false, nil
		case ok:
			return nil, false, &JobError{JobID: id, State: st.State, Code: res.ExitCode, Msg: res.Error}
		case st.State == slurm.Unknown:
			return nil, false, &JobError{JobID: id, State: st.State, Code: -1, Msg: "the job left the queue without writing its result (" + filepath.Join(j.Dir, "job.out") + " may say why)"}
		}
		return nil, false, &JobError{JobID: id, State: st.State, Code: st.ExitCode, Msg: "the job ended " + st.String() + " before kiln job run wrote a result; see " + filepath.Join(j.Dir, "job.out")}
	case slurm.Timeout:
		return nil, false, &JobError{JobID: id, State: st.State, Code: -1, Msg: fmt.Sprintf("the job hit its time limit (--time, from timeout = %s)", r.node.Meta.Timeout)}
	case slurm.OutOfMemory:
		return nil, false, &JobError{JobID: id, State: st.State, Code: -1, Msg: "the job ran out of memory; ask for more with mem in the node's slurm block"}
	case slurm.NodeFail, slurm.Preempted, slurm.BootFail:
		if j.Submissions <= r.exec.Requeue {
			return nil, true, nil
		}
		return nil, false, &JobError{JobID: id, State: st.State, Code: -1, Msg: fmt.Sprintf("the job ended %s after %d submissions (requeue = %d)", st.State, j.Submissions, r.exec.Requeue)}
	case slurm.Cancelled:
		return nil, false, &JobError{JobID: id, State: st.State, Code: -1, Msg: "the job was cancelled outside kiln (scancel, or an administrator)"}
	}
	return nil, false, &JobError{JobID: id, State: st.State, Code: st.ExitCode, Msg: "the job ended " + st.String()}
}

// JobError is a Slurm job that did not produce the node's result.
type JobError struct {
	JobID string
	State slurm.State
	Code  int // the node command's exit code, or -1
	Msg   string
}

func (e *JobError) Error() string {
	s := fmt.Sprintf("Slurm job %s %s", e.JobID, e.State)
	if e.Code > 0 {
		s += " with exit code " + strconv.Itoa(e.Code)
	}
	return s + ": " + e.Msg
}

// ExitCode is the exit code of the node's command, or -1.
func (e *JobError) ExitCode() int { return e.Code }

func (e *JobError) Unwrap() error { return errJobFailed }

func quoteArgs(args []string) string {
	s := ""
	for i, a := range args {
		if i > 0 {
			s += " "
		}
		s += strconv.Quote(a)[1 : len(strconv.Quote(a))-1]
	}
	return s
}

// status returns the function that shows a node's job state in the live
// status, when the hooks show one.
func (a *Applier) status(at addr.Node) func(string) {
	h, ok := a.Options.Hooks.(Statuses)
	if !ok {
		return nil
	}
	return func(s string) { h.Status(at, s) }
}
