package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kilnbuild/kiln/engine/sandbox"
	"github.com/rogpeppe/go-internal/testscript"
	"golang.org/x/sys/unix"
)

// TestMain lets the scripts run kiln as a real process: testscript puts a
// copy of this test binary named kiln on the scripts' PATH.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"kiln": func() {
			c := &cli{stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, isTTY: isTerminal(os.Stdout)}
			os.Exit(c.main(os.Args[1:]))
		},
	})
}

// TestScripts runs the CLI behaviour scripts in testdata/script. Each script
// pins one staleness rule with real processes and real files, and counts
// the runs of a node by the lines its command appends to a counter file.
//
// The condition [fixedpaths] holds where sealed runs see fixed paths.
//
// Commands beyond testscript's own:
//
//	lines FILE N          FILE has exactly N lines (a missing file has 0)
//	status N PROG ARGS... run PROG and expect exit code N; sets stdout and stderr
//	waitfile FILE         wait (up to 20s) until FILE exists
//	bgpid VAR             set $VAR to the pid of the newest background command
//	signal SIG            send signal SIG (HUP, TERM, ...) to the newest background command
//	gone PIDFILE          the process whose pid PIDFILE holds exits within 5s
//	disjoint DIR MAX [ID...]
//	                      each file in DIR is one run's "START END IDS" (stamps
//	                      in ns, IDS comma-separated): runs that overlap in time
//	                      share no id, at most MAX overlap, no run used an ID
func TestScripts(t *testing.T) {
	cmds := map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"lines":    cmdLines,
		"status":   cmdStatus,
		"waitfile": cmdWaitFile,
		"bgpid":    cmdBackgroundPID,
		"signal":   cmdSignal,
		"gone":     cmdGone,
		"disjoint": cmdDisjoint,
	}
	for name, f := range scaleOutCmds {
		cmds[name] = f
	}
	// KILN_PLAN_VERIFY=1 go test ./cmd/kiln -run TestScripts runs every
	// script with each quick answer decided again by the full plan.
	verifyLog := ""
	if os.Getenv("KILN_PLAN_VERIFY") != "" {
		verifyLog = filepath.Join(t.TempDir(), "verified")
		t.Cleanup(func() { checkVerified(t, verifyLog) })
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(e *testscript.Env) error {
			e.Setenv("NO_COLOR", "1")
			e.Setenv("PATH", os.Getenv("PATH"))
			// The scripts count a node's runs, and step its commands, by
			// files in their own folder, which is the pipeline folder: a
			// sealed run may write it only as a host's extra writable path.
			// The sandbox's own scripts (sandbox_*.txtar) clear it.
			e.Setenv("KILN_SANDBOX_WRITABLE", e.WorkDir)
			if verifyLog != "" {
				e.Setenv("KILN_PLAN_VERIFY", "1")
				e.Setenv("KILN_PLAN_VERIFY_LOG", verifyLog)
			}
			// A TCP port that was free a moment ago, for scripts that start
			// services.
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				return err
			}
			e.Setenv("FREEPORT", strconv.Itoa(l.Addr().(*net.TCPAddr).Port))
			return l.Close()
		},
		Cmds: cmds,
		// [fixedpaths]: sealed runs see the fixed paths of a view here
		// (root on Linux), which is what they write into their results.
		Condition: func(cond string) (bool, error) {
			if cond == "fixedpaths" {
				return sandbox.Relocation() == nil, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	})
}

// cmdLines asserts the number of lines of a counter file.
func cmdLines(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: lines FILE N")
	}
	want, err := strconv.Atoi(args[1])
	if err != nil {
		ts.Fatalf("lines: N must be a number, got %q", args[1])
	}
	got := 0
	b, err := os.ReadFile(ts.MkAbs(args[0]))
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		ts.Fatalf("lines: %v", err)
	default:
		got = strings.Count(string(b), "\n")
		if len(b) > 0 && b[len(b)-1] != '\n' {
			got++
		}
	}
	if (got == want) == neg {
		if neg {
			ts.Fatalf("%s has %d lines, want any other number", args[0], got)
		}
		ts.Fatalf("%s has %d lines, want %d", args[0], got, want)
	}
}

// cmdStatus runs a program and checks its exact exit code, which
// testscript's exec cannot tell apart beyond success and failure.
func cmdStatus(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! status")
	}
	if len(args) < 2 {
		ts.Fatalf("usage: status N PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("status: N must be a number, got %q", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			ts.Fatalf("status: %v", err)
		}
		got = exit.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with %d, want %d", strings.Join(args[1:], " "), got, want)
	}
}

// cmdWaitFile waits until a background process created a file. The limit
// only guards against a hung script: a Slurm job may wait a minute for the
// one-node test cluster when every Slurm script runs at once on a loaded
// machine (each job's start loads a login environment).
func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitfile FILE")
	}
	path := ts.MkAbs(args[0])
	deadline := time.Now().Add(90 * time.Second)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("waitfile: %s did not appear within 90s", args[0])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// cmdBackgroundPID exposes the pid of the newest background command, so a
// script can check that kiln names the right lock holder.
func cmdBackgroundPID(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: bgpid VAR")
	}
	cmds := ts.BackgroundCmds()
	if len(cmds) == 0 || cmds[len(cmds)-1].Process == nil {
		ts.Fatalf("bgpid: no background command is running")
	}
	ts.Setenv(args[0], strconv.Itoa(cmds[len(cmds)-1].Process.Pid))
}

// cmdSignal sends a signal by name to the newest background command, for
// the signals testscript's kill does not know.
func cmdSignal(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: signal SIG")
	}
	sig := unix.SignalNum("SIG" + args[0])
	if sig == 0 {
		ts.Fatalf("signal: unknown signal %q", args[0])
	}
	cmds := ts.BackgroundCmds()
	if len(cmds) == 0 || cmds[len(cmds)-1].Process == nil {
		ts.Fatalf("signal: no background command is running")
	}
	if err := cmds[len(cmds)-1].Process.Signal(sig); err != nil {
		ts.Fatalf("signal: %v", err)
	}
}

// cmdGone waits for the process whose pid is in a file to exit. The bound
// only guards against a hung script: a process kiln stops is gone at once.
func cmdGone(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: gone PIDFILE")
	}
	b, err := os.ReadFile(ts.MkAbs(args[0]))
	if err != nil {
		ts.Fatalf("gone: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		ts.Fatalf("gone: %s does not hold a pid: %v", args[0], err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil || strings.Contains(string(st), ") Z ") {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("gone: process %d still runs", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// cmdDisjoint checks what commands recorded of their own runs: the device
// ids they saw and when they ran.
func cmdDisjoint(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: disjoint DIR MAX [ID...]")
	}
	most, err := strconv.Atoi(args[1])
	if err != nil {
		ts.Fatalf("disjoint: MAX must be a number, got %q", args[1])
	}
	type run struct {
		name       string
		start, end int64
		ids        map[string]bool
	}
	entries, err := os.ReadDir(ts.MkAbs(args[0]))
	if err != nil {
		ts.Fatalf("disjoint: %v", err)
	}
	var runs []run
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(ts.MkAbs(args[0]), e.Name()))
		if err != nil {
			ts.Fatalf("disjoint: %v", err)
		}
		f := strings.Fields(string(b))
		if len(f) != 3 {
			ts.Fatalf("disjoint: %s holds %q, want START END IDS", e.Name(), b)
		}
		r := run{name: e.Name(), ids: map[string]bool{}}
		r.start, _ = strconv.ParseInt(f[0], 10, 64)
		r.end, _ = strconv.ParseInt(f[1], 10, 64)
		for id := range strings.SplitSeq(f[2], ",") {
			r.ids[id] = true
		}
		for _, unused := range args[2:] {
			if r.ids[unused] {
				ts.Fatalf("disjoint: %s ran on device %s (%s)", r.name, unused, f[2])
			}
		}
		runs = append(runs, r)
	}
	type event struct {
		at    int64
		delta int // +1 a run starts, -1 one ends
	}
	var events []event
	for i, a := range runs {
		events = append(events, event{a.start, 1}, event{a.end, -1})
		for _, b := range runs[i+1:] {
			if a.start >= b.end || b.start >= a.end {
				continue
			}
			for id := range a.ids {
				if b.ids[id] {
					ts.Fatalf("disjoint: %s and %s ran at the same time on device %s", a.name, b.name, id)
				}
			}
		}
	}
	// The most runs at once: ends sort before starts at the same stamp.
	sort.Slice(events, func(i, j int) bool {
		if events[i].at != events[j].at {
			return events[i].at < events[j].at
		}
		return events[i].delta < events[j].delta
	})
	now := 0
	for _, e := range events {
		if now += e.delta; now > most {
			ts.Fatalf("disjoint: %d runs at once, want at most %d", now, most)
		}
	}
	ts.Logf("%d runs, none sharing a device while running together", len(runs))
}

// checkVerified fails a verifying run in which no quick answer was
// verified: the quick path never engaged, so nothing was checked.
func checkVerified(t *testing.T, log string) {
	b, err := os.ReadFile(log)
	answers := strings.Count(string(b), "\n")
	if err != nil || answers == 0 {
		t.Errorf("KILN_PLAN_VERIFY: no quick answer was verified (%v)", err)
		return
	}
	t.Logf("KILN_PLAN_VERIFY: %d quick answers agreed with the full plan", answers)
}
