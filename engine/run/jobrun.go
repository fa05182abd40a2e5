package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/proc"
	"github.com/kilnbuild/kiln/engine/run/job"
	"github.com/kilnbuild/kiln/engine/slurm"
	"github.com/kilnbuild/kiln/engine/state"
)

// jobPassEnv are the variables of a batch job's own environment that reach
// the node's processes: what Slurm tells the job about itself (SLURM_*,
// by prefix) and the devices it was given, which Slurm sets from --gres on
// clusters whose gres.conf names device files.
var jobPassEnv = []string{"SLURM_*", "SLURMD_NODENAME", "CUDA_VISIBLE_DEVICES", "ASCEND_RT_VISIBLE_DEVICES", "ASCEND_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL"}

// RunJob runs the node a job spec describes with its kind, exactly as the
// local executor would (same configuration, environment and $KILN_OUT),
// then hashes the result where it lies. It is what `kiln job run` does on
// a compute node; the node's output goes to log.
func RunJob(ctx context.Context, spec *job.Spec, kinds map[string]kind.Kind, log io.Writer) *job.Result {
	res := &job.Result{Key: spec.Key, ExitCode: -1, Started: time.Now().UTC()}
	res.Host, _ = os.Hostname()
	fail := func(err error) *job.Result {
		res.Error = err.Error()
		var ee interface{ ExitCode() int }
		if errors.As(err, &ee) {
			res.ExitCode = ee.ExitCode()
		}
		res.Ended = time.Now().UTC()
		return res
	}
	k, ok := kinds[spec.Kind]
	if !ok {
		return fail(fmt.Errorf("this kiln has no %s kind: run the same kiln on the compute nodes", spec.Kind))
	}
	if k.Version() != spec.KindVersion {
		return fail(fmt.Errorf("kind %s is version %s here and %s where the job was submitted: run the same kiln on the compute nodes", spec.Kind, k.Version(), spec.KindVersion))
	}
	a, err := addr.Parse(spec.Addr)
	if err != nil {
		return fail(err)
	}
	cfg, err := spec.Value()
	if err != nil {
		return fail(err)
	}
	if fi, err := os.Stat(spec.Dir); err != nil || !fi.IsDir() {
		return fail(fmt.Errorf("the run folder %s is not visible on %s: the pipeline's state folder must be on a filesystem the compute nodes share with the submitting host", spec.Dir, res.Host))
	}
	b := &kind.Build{
		Node:     kind.Node{Addr: a, Config: cfg, Root: spec.Root, Out: spec.Out, State: spec.State},
		Dir:      spec.Dir,
		Resumed:  spec.Resumed,
		Env:      plan.MergeEnv(append([]string(nil), spec.Env...), passed(os.Environ(), spec.PassEnv)...),
		Log:      log,
		Previous: spec.Previous,
		Shell:    spec.Shell,
		Sandbox:  spec.Sandbox,
	}
	if spec.Sealed {
		tmp, err := makeRunTemp()
		if err != nil {
			return fail(err)
		}
		defer removeRunTemp(tmp)
		b.Env = plan.MergeEnv(b.Env, tempEnv(tmp)...)
		if b.Sandbox != nil {
			b.Sandbox.Write = append(b.Sandbox.Write, tmp)
		}
	}
	if p := jobPath(os.Environ(), b.Env); p != "" {
		// Slurm's client commands are looked up on kiln's own PATH.
		os.Setenv("PATH", p)
	}
	cluster := &slurm.Cluster{}
	launch, err := batchEnv(ctx, cluster, os.Environ(), log)
	if err != nil {
		return fail(err)
	}
	b.Env = plan.MergeEnv(b.Env, launch...)
	defer forwardSignals(log)()
	r, err := k.Build(ctx, b)
	if err == nil && ctx.Err() != nil {
		// The command exited 0 after kiln was told to stop (scancel, the
		// time limit, Ctrl-C): whatever it left is not the node's result.
		err = errStopped
	}
	if err == nil {
		err = waitSteps(ctx, cluster, os.Environ(), log)
	}
	if err != nil {
		if cause := context.Cause(ctx); cause != nil && !strings.Contains(err.Error(), cause.Error()) {
			err = fmt.Errorf("%v: %w", cause, err)
		}
		return fail(err)
	}
	digest, outs, attrs, err := hashResult(spec.Root, spec.State, spec.Dir, r, nil, nil)
	if err != nil {
		return fail(err)
	}
	if ctx.Err() != nil {
		// Told to stop while the result was hashed, or just as the command
		// exited (scancel signals the command and kiln at once).
		return fail(fmt.Errorf("%v: %w", context.Cause(ctx), errStopped))
	}
	res.OK, res.ExitCode = true, 0
	res.Digest, res.Outputs, res.Attrs = digest, outs, attrs
	res.Ended = time.Now().UTC()
	return res
}

// errStopped is the error of a run told to stop (scancel, the time limit,
// Ctrl-C) whose command exited 0 anyway: a shell that traps SIGTERM.
var errStopped = errors.New("the run was stopped before it finished; its exit status 0 is not trusted")

// hashResult computes what a successful build made: the digest (the
// kind's own, or the Merkle digest of the run folder and in-place
// outputs), the outputs to record and the attributes, exports included.
func hashResult(root, stateDir, dir string, r *kind.Result, c *hash.StatCache, read *atomic.Int64) (string, []state.Output, map[string]string, error) {
	if r == nil {
		r = &kind.Result{}
	}
	outs, err := InPlaceOutputs(root, stateDir, r.Outputs, true)
	if err != nil {
		return "", nil, nil, err
	}
	attrs := maps.Clone(r.Attrs)
	if attrs == nil {
		attrs = map[string]string{}
	}
	plan.EncodeExports(attrs, r.Exports)
	if r.Digest != "" {
		attrs[plan.AttrDigestBy] = "kind"
		return r.Digest, nil, attrs, nil
	}
	digest, recs, err := plan.DirDigest(dir, root, outs, c, read)
	if err != nil {
		return "", nil, nil, fmt.Errorf("hashing the result: %w", err)
	}
	return digest, recs, attrs, nil
}

// passed picks from env the variables names lists ("PREFIX*" for a prefix).
func passed(env, names []string) []string {
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		for _, n := range names {
			if p, ok := strings.CutSuffix(n, "*"); ok && strings.HasPrefix(k, p) || n == k {
				out = append(out, kv)
				break
			}
		}
	}
	return out
}

// batchEnv is what a command inside a Slurm job gets besides the node's
// environment (see slurm.JobEnv and slurm.Launch): srun steps that inherit
// the command's environment, KILN_CPUS as Slurm gave them, the job's nodes,
// and a head address and free port for a launcher. A job on one node whose
// cluster cannot say where it runs only loses the launch variables; a
// job on several nodes fails.
func batchEnv(ctx context.Context, c *slurm.Cluster, environ []string, log io.Writer) ([]string, error) {
	env := slurm.JobEnv(environ)
	if env == nil {
		return nil, nil
	}
	l, _, err := c.LaunchOf(ctx, environ)
	if err != nil {
		if n, _ := strconv.Atoi(lookupEnv(environ, "SLURM_JOB_NUM_NODES")); n > 1 {
			return nil, err
		}
		fmt.Fprintf(log, "kiln: %v; MASTER_ADDR and MASTER_PORT are not set\n", err)
		return env, nil
	}
	return append(env, l.Env()...), nil
}

// jobPath is the PATH kiln job run takes when the job gave it none: with
// --export=NONE, slurmd builds the job's environment from the user's login
// shell, and when that fails or times out (a slow login profile on a busy
// node) the job starts without PATH, and squeue and scontrol are not
// found. The node's own PATH, which found sbatch where it was submitted,
// comes first, then the system's folders. "" when environ has a PATH.
func jobPath(environ, nodeEnv []string) string {
	if lookupEnv(environ, "PATH") != "" {
		return ""
	}
	system := "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	if p := lookupEnv(nodeEnv, "PATH"); p != "" {
		return p + ":" + system
	}
	return system
}

// stepGrace is how long srun steps a command left running may go on after
// it ended before they are cancelled.
var stepGrace = 30 * time.Second

// waitSteps waits, inside a Slurm job, for the srun steps the command left
// to end, so that the result is hashed once nothing writes to it.
func waitSteps(ctx context.Context, c *slurm.Cluster, environ []string, log io.Writer) error {
	id := lookupEnv(environ, "SLURM_JOB_ID")
	if id == "" {
		return nil
	}
	steps, err := c.Steps(ctx, id)
	if err != nil || len(steps) == 0 {
		return err
	}
	fmt.Fprintf(log, "kiln: waiting for Slurm steps %s, which outlived the command (cancelled after %s)\n", strings.Join(steps, ", "), stepGrace)
	return c.WaitSteps(ctx, id, 500*time.Millisecond, stepGrace)
}

func lookupEnv(environ []string, name string) string {
	v := ""
	for _, kv := range environ {
		if k, val, ok := strings.Cut(kv, "="); ok && k == name {
			v = val
		}
	}
	return v
}

// forwarded are the signals a job's batch script passes on to the
// command's process groups: what sbatch --signal=B:USR1@300 sends before
// the time limit, for the command to write a checkpoint.
var forwarded = []os.Signal{syscall.SIGUSR1, syscall.SIGUSR2}

// forwardSignals passes the forwarded signals kiln receives to every
// process group it started; the returned function stops it.
func forwardSignals(log io.Writer) (stop func()) {
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, forwarded...)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case sig := <-ch:
				groups := proc.KillAll(sig.(syscall.Signal))
				fmt.Fprintf(log, "kiln: passed %v to the command (process groups %v)\n", sig, groups)
			case <-done:
				return
			}
		}
	}()
	return func() { signal.Stop(ch); close(done) }
}
