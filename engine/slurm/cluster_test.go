package slurm

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kilnbuild/kiln/engine/slurm/slurmtest"
)

func cluster(t *testing.T) (*Cluster, *Watcher) {
	t.Helper()
	if err := slurmtest.Up(); err != nil {
		t.Fatal(err)
	}
	c := &Cluster{}
	return c, &Watcher{Cluster: c, Interval: 200 * time.Millisecond}
}

func submit(t *testing.T, c *Cluster, r *Request) string {
	t.Helper()
	dir := t.TempDir()
	r.Output = filepath.Join(dir, "job.out")
	r.Chdir = dir
	id, err := c.Submit(context.Background(), r, filepath.Join(dir, "job.sh"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Cancel(context.Background(), id) })
	return id
}

func scontrol(t *testing.T, id string) string {
	t.Helper()
	out, err := exec.Command("scontrol", "show", "job", "-o", id).CombinedOutput()
	if err != nil {
		t.Fatalf("scontrol show job %s: %v: %s", id, err, out)
	}
	return string(out)
}

func TestFailingJobWithGRES(t *testing.T) {
	c, w := cluster(t)
	r := &Request{Name: "exec.fails", GRES: map[string]int64{"npu": 8}, CPUsPerTask: 1, Time: 2 * time.Minute,
		Command: []string{"/bin/sh", "-c", "echo one; echo two >&2; exit 3"}}
	id := submit(t, c, r)
	var out bytes.Buffer
	f := &Follow{Path: r.Output}
	var seen []State
	st, err := w.Wait(context.Background(), id, func(s Status, err error) {
		if err != nil {
			t.Errorf("poll: %v", err)
		}
		f.Copy(&out)
		if len(seen) == 0 || seen[len(seen)-1] != s.State {
			seen = append(seen, s.State)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	f.Copy(&out)
	if st.State != Failed || st.ExitCode != 3 || st.String() != "FAILED with exit code 3" {
		t.Errorf("final status %+v (%s), want FAILED with exit code 3 (seen %v)", st, st, seen)
	}
	if out.String() != "one\ntwo\n" {
		t.Errorf("followed output %q, want the job's two lines", out.String())
	}
	info := scontrol(t, id)
	for _, want := range []string{"TresPerNode=gres:npu:8", "JobName=exec.fails", "TimeLimit=00:02:00", "Requeue=0"} {
		if !strings.Contains(info, want) {
			t.Errorf("scontrol show job lacks %s:\n%s", want, info)
		}
	}
}

func TestPendingReasonAndCancel(t *testing.T) {
	c, w := cluster(t)
	// Two jobs that each take all 8 NPUs: the second waits for the first.
	long := func(name string) *Request {
		return &Request{Name: name, GRES: map[string]int64{"npu": 8}, CPUsPerTask: 1, Command: []string{"/bin/sleep", "300"}}
	}
	first := submit(t, c, long("exec.first"))
	second := submit(t, c, long("exec.second"))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var mu sync.Mutex
	var shown []string
	running := make(chan struct{})
	var once sync.Once
	go w.Wait(ctx, first, func(s Status, err error) {
		if s.State == Running {
			once.Do(func() { close(running) })
		}
	})
	select {
	case <-running:
	case <-ctx.Done():
		t.Fatalf("job %s never ran: %s", first, scontrol(t, first))
	}
	pendCtx, stop := context.WithCancel(ctx)
	w.Wait(pendCtx, second, func(s Status, err error) {
		mu.Lock()
		shown = append(shown, s.String())
		mu.Unlock()
		if s.State == Pending && s.Reason == "Resources" {
			stop()
		}
	})
	if got := shown[len(shown)-1]; got != "PENDING (Resources)" {
		t.Errorf("the second job shows %q, want PENDING (Resources)", got)
	}
	if err := w.CancelAndWait(ctx, first, second); err != nil {
		t.Fatal(err)
	}
	got, err := c.Query(ctx, []string{first, second})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{first, second} {
		if got[id].State != Cancelled {
			t.Errorf("job %s is %s after CancelAndWait, want CANCELLED", id, got[id])
		}
	}
	out, _ := exec.Command("squeue", "-h", "-j", first+","+second).CombinedOutput()
	if strings.TrimSpace(string(out)) != "" {
		t.Errorf("squeue still lists the jobs:\n%s", out)
	}
}

func TestCompletedAndUnknown(t *testing.T) {
	c, w := cluster(t)
	marker := filepath.Join(t.TempDir(), "ran")
	id := submit(t, c, &Request{Name: "exec.ok", CPUsPerTask: 1, Command: []string{"/usr/bin/touch", marker}})
	st, err := w.Wait(context.Background(), id, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.State != Completed || st.ExitCode != 0 {
		t.Errorf("final status %s, want COMPLETED", st)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the job did not run its command: %v", err)
	}
	got, err := c.Query(context.Background(), []string{"999999"})
	if err != nil {
		t.Fatal(err)
	}
	if got["999999"].State != Unknown {
		t.Errorf("a job no one knows is %s, want UNKNOWN", got["999999"])
	}
}

// An array's elements are watched, and end, one by one: element 1 fails
// alone, and a job queued after element 0 with afterok runs once it has
// completed, while one queued after element 1 never starts.
func TestArrayElementsAndDependencies(t *testing.T) {
	c, w := cluster(t)
	dir := t.TempDir()
	for i := range 3 {
		os.MkdirAll(filepath.Join(dir, strconv.Itoa(i)), 0o755)
	}
	r := &Request{Name: "exec.fan", Array: []int{0, 1, 2}, Chdir: dir, Output: filepath.Join(dir, "%a", "job.out"), Time: 2 * time.Minute,
		Command: []string{"/bin/sh", "-c", `echo "element $SLURM_ARRAY_TASK_ID"; test "$SLURM_ARRAY_TASK_ID" != 1`, "%a"}}
	id, err := c.Submit(context.Background(), r, filepath.Join(dir, "array.sh"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Cancel(context.Background(), id) })
	ok := submit(t, c, &Request{Name: "exec.after0", After: []string{ElementID(id, 0)}, Time: 2 * time.Minute, Command: []string{"/bin/true"}})
	never := submit(t, c, &Request{Name: "exec.after1", After: []string{ElementID(id, 1)}, Time: 2 * time.Minute, Command: []string{"/bin/true"}})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for i, want := range []State{Completed, Failed, Completed} {
		st, err := w.Wait(ctx, ElementID(id, i), nil)
		if err != nil {
			t.Fatal(err)
		}
		if st.State != want {
			t.Errorf("element %d ended %s, want %s", i, st, want)
		}
		b, _ := os.ReadFile(filepath.Join(dir, strconv.Itoa(i), "job.out"))
		if got := fmt.Sprintf("element %d\n", i); string(b) != got {
			t.Errorf("element %d wrote %q to its own output, want %q", i, b, got)
		}
	}
	if st, err := w.Wait(ctx, ok, nil); err != nil || st.State != Completed {
		t.Errorf("the job after element 0: %s, %v; want COMPLETED", st, err)
	}
	got, err := c.Query(ctx, []string{never})
	if err != nil {
		t.Fatal(err)
	}
	if st := got[never]; st.State != Pending || !strings.Contains(st.Reason, "Dependency") {
		t.Errorf("the job after the failed element 1: %s, want PENDING for its dependency", st)
	}
}
