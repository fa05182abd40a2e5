package run

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/run/job"
	"github.com/kilnbuild/kiln/engine/slurm"
)

// A job's final state and what it wrote map to the node's outcome.
func TestSettleMapsFinalStates(t *testing.T) {
	ok := &job.Result{Key: "k", OK: true, Digest: "d", ExitCode: 0}
	failed := &job.Result{Key: "k", ExitCode: 3, Error: "exit status 3"}
	cases := []struct {
		name        string
		state       slurm.State
		result      *job.Result
		submissions int
		wantAgain   bool
		wantErr     string // "" for success
	}{
		{"completed", slurm.Completed, ok, 1, false, ""},
		{"completed, found only in the job's own result", slurm.Unknown, ok, 1, false, ""},
		{"failed with the command's code", slurm.Failed, failed, 1, false, "Slurm job 7 FAILED with exit code 3: exit status 3"},
		{"failed before kiln job run wrote anything", slurm.Failed, nil, 1, false, "before kiln job run wrote a result"},
		{"gone without a trace", slurm.Unknown, nil, 1, false, "left the queue without writing its result"},
		{"time limit", slurm.Timeout, nil, 1, false, "TIMEOUT: the job hit its time limit (--time, from timeout = 1h0m0s)"},
		{"memory", slurm.OutOfMemory, nil, 1, false, "OUT_OF_MEMORY: the job ran out of memory"},
		{"node failure, requeued", slurm.NodeFail, nil, 1, true, ""},
		{"preempted, requeued", slurm.Preempted, nil, 1, true, ""},
		{"node failure after the requeue", slurm.NodeFail, nil, 2, false, "NODE_FAIL after 2 submissions (requeue = 1)"},
		{"cancelled outside kiln", slurm.Cancelled, nil, 1, false, "cancelled outside kiln"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.result != nil {
				if err := job.WriteResult(filepath.Join(dir, "result.json"), tc.result); err != nil {
					t.Fatal(err)
				}
			}
			n := &config.Node{Addr: addr.Node{Kind: "exec", Name: "train"}, Meta: config.Meta{Timeout: time.Hour}}
			r := &slurmRun{exec: &config.Executor{Requeue: 1}, node: n, key: "k"}
			x := &slurmExec{}
			res, again, err := x.settle(r, slurm.Job{ID: "7", Dir: dir, Submissions: tc.submissions}, slurm.Status{ID: "7", State: tc.state})
			if again != tc.wantAgain {
				t.Errorf("again = %v, want %v", again, tc.wantAgain)
			}
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("error %v, want one saying %q", err, tc.wantErr)
			case tc.wantErr == "" && !tc.wantAgain && (res == nil || res.Digest != "d"):
				t.Errorf("result %+v, want the job's", res)
			}
		})
	}
}

func TestSlurmRequest(t *testing.T) {
	n := &config.Node{Addr: addr.Node{Kind: "exec", Name: "sft_train"}, Meta: config.Meta{
		Timeout:   90 * time.Minute,
		Resources: map[string]int64{"npu": 8, "cpu": 4, "mem_mb": 2048},
		Slurm:     &config.SlurmJob{Nodes: 2, NTasksPerNode: 1, Mem: "64G", Flags: []string{"--exclusive"}},
	}}
	e := &config.Executor{Partition: "a2", Account: "llm", GRES: "gpu", Flags: []string{"--constraint=a2"}}
	req := slurmRequest(&slurmRun{exec: e, node: n, build: &kind.Build{Node: kind.Node{Root: "/shared/p"}}}, "/shared/jobs/x")
	got := strings.Join(req.Args(), " ")
	want := "--parsable --no-requeue --export=NONE --job-name=exec.sft_train --output=/shared/jobs/x/job.out --chdir=/shared/p --partition=a2 --account=llm --nodes=2 --ntasks-per-node=1 --cpus-per-task=4 --mem=64G --gres=gpu:8 --time=90 --constraint=a2 --exclusive"
	if got != want {
		t.Errorf("sbatch arguments\n got %s\nwant %s", got, want)
	}
}

// stoppedKind's command exits 0 once told to stop, as a shell does after
// its child's SIGTERM.
type stoppedKind struct{ kind.Kind }

func (stoppedKind) Name() string    { return "exec" }
func (stoppedKind) Version() string { return "1" }
func (stoppedKind) Build(ctx context.Context, b *kind.Build) (*kind.Result, error) {
	<-ctx.Done()
	return &kind.Result{}, nil
}

// A job stopped while its command ran never reports a result to link,
// even when the command exited 0.
func TestRunJobStoppedIsNotOK(t *testing.T) {
	t.Setenv("SLURM_JOB_ID", "")
	dir := t.TempDir()
	spec := &job.Spec{Addr: "exec.train", Kind: "exec", KindVersion: "1", Key: "k", Root: dir, Dir: dir, Config: []byte(`{}`), ConfigType: []byte(`["object",{}]`)}
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("interrupted"))
	res := RunJob(ctx, spec, map[string]kind.Kind{"exec": stoppedKind{}}, io.Discard)
	if res.OK || res.Digest != "" {
		t.Fatalf("result %+v, want a failure", res)
	}
	if !strings.Contains(res.Error, "interrupted") || !strings.Contains(res.Error, "stopped before it finished") {
		t.Errorf("error %q, want the cause and that the run was stopped", res.Error)
	}
}

// syncBuffer is a log that two waits may write at once.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A controller that does not answer is said once per job, though each poll
// asks about another set of jobs: job 2 joins the polls while job 1 waits.
func TestSlurmWaitSaysAnOutageOnce(t *testing.T) {
	bin := t.TempDir()
	ok := filepath.Join(bin, "answer")
	squeue := "#!/bin/sh\nif [ -e " + ok + " ]; then echo '1|COMPLETED|None|vm|0|'; echo '2|COMPLETED|None|vm|0|'; exit 0; fi\n" +
		"echo 'slurm_load_jobs error: Unable to contact slurm controller (connect failure)' >&2; exit 1\n"
	if err := os.WriteFile(filepath.Join(bin, "squeue"), []byte(squeue), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	x := newSlurmExec(t.TempDir(), SlurmOptions{})
	n := &config.Node{Addr: addr.Node{Kind: "exec", Name: "train"}}
	logs := []*syncBuffer{{}, {}}
	var wg sync.WaitGroup
	wait := func(i int) {
		defer wg.Done()
		r := &slurmRun{exec: &config.Executor{Poll: 20 * time.Millisecond}, node: n, key: "k", log: logs[i]}
		if _, err := x.wait(context.Background(), r, slurm.Job{ID: strconv.Itoa(i + 1), Dir: t.TempDir()}); err != nil {
			t.Errorf("job %d: %v", i+1, err)
		}
	}
	said := func(i int) int { return strings.Count(logs[i].String(), "(still waiting)") }
	for i := range logs {
		wg.Add(1)
		go wait(i)
		for give := time.Now().Add(time.Minute); said(i) == 0; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(give) {
				t.Fatalf("job %d: no word of the outage after a minute:\n%s", i+1, logs[i].String())
			}
		}
	}
	time.Sleep(100 * time.Millisecond) // polls of both jobs that fail
	if err := os.WriteFile(ok, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for i := range logs {
		if n := said(i); n != 1 {
			t.Errorf("job %d: the outage was said %d times, want once:\n%s", i+1, n, logs[i].String())
		}
	}
}

// A job whose login environment failed to load has no PATH; kiln job run
// then finds squeue on the node's PATH, then in the system's folders.
func TestJobPathWhenTheJobHasNone(t *testing.T) {
	if got := jobPath([]string{"PATH=/opt/slurm/bin", "HOME=/root"}, []string{"PATH=/x"}); got != "" {
		t.Errorf("jobPath with a PATH = %q, want it left alone", got)
	}
	if got, want := jobPath([]string{"SLURM_JOB_ID=7"}, []string{"PATH=/opt/slurm/bin:/usr/bin"}), "/opt/slurm/bin:/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"; got != want {
		t.Errorf("jobPath = %q, want %q", got, want)
	}
	if got := jobPath(nil, nil); !strings.Contains(got, "/usr/bin") {
		t.Errorf("jobPath without any PATH = %q, want the system's folders", got)
	}
}
