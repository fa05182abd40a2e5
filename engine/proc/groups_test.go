package proc

import (
	"context"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"
)

// startGroup starts sleep in a process group of its own, with env.
func startGroup(t *testing.T, env ...string) (*exec.Cmd, Group) {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	st, err := ReadStat(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	return cmd, Group{PGID: cmd.Process.Pid, Start: st.Start}
}

func pidsOf(ps []Process) []int {
	var out []int
	for _, p := range ps {
		out = append(out, p.PID)
	}
	return out
}

// TestSurvivors: a journaled group is found while its leader runs with the
// recorded start time, never when the start time differs (a recycled pid);
// an unjournaled process is found by the run folder in its environment.
func TestSurvivors(t *testing.T) {
	_, g := startGroup(t)
	marked, _ := startGroup(t, "KILN_OUT=/state/store/ab/abc/r1")
	if got := pidsOf(Survivors([]Group{g}, nil)); !slices.Equal(got, []int{g.PGID}) {
		t.Errorf("journaled group: found %v, want [%d]", got, g.PGID)
	}
	recycled := Group{PGID: g.PGID, Start: g.Start + 1}
	if got := Survivors([]Group{recycled}, nil); len(got) != 0 {
		t.Errorf("a group whose leader started at another time was taken for the journaled one: %v", got)
	}
	if got := pidsOf(Survivors(nil, []string{"KILN_OUT=/state/store/ab/abc/r1"})); !slices.Equal(got, []int{marked.Process.Pid}) {
		t.Errorf("by marker: found %v, want [%d]", got, marked.Process.Pid)
	}
	if got := Survivors(nil, []string{"KILN_OUT=/state/store/ab/abc/r2"}); len(got) != 0 {
		t.Errorf("another run's marker found %v", got)
	}
}

// TestStopSurvivors: SIGTERM first; a process that ignores it gets SIGKILL
// after the grace period.
func TestStopSurvivors(t *testing.T) {
	cmd := exec.Command("sh", "-c", "trap '' TERM; echo ready; while true; do sleep 0.05; done")
	cmd.Env = []string{"KILN_OUT=/state/store/ab/abc/stubborn", "PATH=/usr/bin:/bin"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out.Read(make([]byte, 6)) // the trap is set
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	st, _ := ReadStat(cmd.Process.Pid)
	stopped, left := StopSurvivors([]Group{{PGID: cmd.Process.Pid, Start: st.Start}}, nil, 200*time.Millisecond)
	if len(left) != 0 || !slices.Contains(pidsOf(stopped), cmd.Process.Pid) {
		t.Errorf("stopped %v, left %v", stopped, left)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the process still runs")
	}
	if ws := cmd.ProcessState.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("ended with %v, want killed by SIGKILL", cmd.ProcessState)
	}
}

// TestKillAll: the groups Run started are reached by KillAll until they end.
func TestKillAll(t *testing.T) {
	errc := make(chan error, 1)
	started := make(chan Group, 1)
	ctx := WithTracker(context.Background(), trackerFunc(func(g Group) { started <- g }))
	go func() {
		errc <- Run(ctx, exec.Command("sh", "-c", "trap '' TERM; sleep 60"), time.Minute)
	}()
	g := <-started
	if got := KillAll(syscall.SIGKILL); !slices.Contains(got, g.PGID) {
		t.Fatalf("KillAll = %v, want it to include %d", got, g.PGID)
	}
	select {
	case err := <-errc:
		if err == nil {
			t.Error("Run succeeded after SIGKILL")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after KillAll")
	}
	if got := KillAll(syscall.Signal(0)); slices.Contains(got, g.PGID) {
		t.Errorf("an ended group is still registered: %v", got)
	}
}

type trackerFunc func(Group)

func (f trackerFunc) GroupStarted(g Group) { f(g) }
