package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kilnbuild/kiln/engine/remotecache/nginxtest"
	"github.com/kilnbuild/kiln/engine/slurm/slurmtest"
	"github.com/rogpeppe/go-internal/testscript"
)

// Commands for the scripts that use the real daemons:
//
//	slurm-up                  the one-node test cluster answers (started if needed)
//	slurm2-up                 the two-node one (n1, n2) answers; sets SLURM_CONF to it
//	slurmjobs NAME N          N jobs named NAME were submitted from this script's folder
//	slurmsubmits NAME N       N sbatch submissions made them (an array job is one)
//	slurmjob NAME TEXT        scontrol show job of the newest such job holds TEXT
//	slurmactive NAME N        N of them are still pending or running
//	slurmended NAME           wait (up to 60s) until none of them is
//	slurmcancel NAME          scancel them, from outside kiln
//	cache-start [-readonly]   start nginx as a Bazel-layout cache; sets CACHE_URL and CACHE_ROOT
//	cache-stop                stop it
//	cache-corrupt             flip one byte of every blob it holds
var scaleOutCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"slurm-up":      cmdSlurmUp,
	"slurm2-up":     cmdSlurm2Up,
	"slurmjobs":     cmdSlurmJobs,
	"slurmjob":      cmdSlurmJob,
	"slurmsubmits":  cmdSlurmSubmits,
	"slurmactive":   cmdSlurmActive,
	"slurmended":    cmdSlurmEnded,
	"slurmcancel":   cmdSlurmCancel,
	"cache-start":   cmdCacheStart,
	"cache-stop":    cmdCacheStop,
	"cache-corrupt": cmdCacheCorrupt,
}

func cmdSlurm2Up(ts *testscript.TestScript, neg bool, args []string) {
	conf, err := slurmtest.UpTwoNodes()
	if err != nil {
		ts.Fatalf("%v", err)
	}
	ts.Setenv("SLURM_CONF", conf)
	cancelLeftJobs(ts)
}

// slurmCmd runs a Slurm client command against the script's cluster.
func slurmCmd(ts *testscript.TestScript, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	if conf := ts.Getenv("SLURM_CONF"); conf != "" {
		cmd.Env = append(os.Environ(), "SLURM_CONF="+conf)
	}
	return cmd
}

func cmdSlurmUp(ts *testscript.TestScript, neg bool, args []string) {
	if err := slurmtest.Up(); err != nil {
		ts.Fatalf("%v", err)
	}
	cancelLeftJobs(ts)
}

func cancelLeftJobs(ts *testscript.TestScript) {
	// Whatever the script leaves in the queue (it failed, or killed kiln)
	// goes when it ends.
	ts.Defer(func() {
		for _, j := range scriptJobs(ts, "") {
			if strings.Contains(j, "JobState=PENDING ") || strings.Contains(j, "JobState=RUNNING ") {
				slurmCmd(ts, "scancel", strings.TrimPrefix(strings.Fields(j)[0], "JobId=")).Run()
			}
		}
	})
}

// scriptJobs returns `scontrol show job -o` lines of the jobs named name
// whose working folder is inside this script's $WORK, oldest first.
func scriptJobs(ts *testscript.TestScript, name string) []string {
	out, err := slurmCmd(ts, "scontrol", "show", "job", "-o").CombinedOutput()
	if err != nil && !strings.Contains(string(out), "No jobs") {
		ts.Fatalf("scontrol show job: %v: %s", err, out)
	}
	work := ts.Getenv("WORK")
	var jobs []string
	for _, line := range strings.Split(string(out), "\n") {
		if (name == "" || strings.Contains(line, "JobName="+name+" ")) && inWork(line, work) {
			jobs = append(jobs, line)
		}
	}
	jobID := func(l string) int {
		f := strings.Fields(l)
		n, _ := strconv.Atoi(strings.TrimPrefix(f[0], "JobId="))
		return n
	}
	for i := 1; i < len(jobs); i++ {
		for j := i; j > 0 && jobID(jobs[j]) < jobID(jobs[j-1]); j-- {
			jobs[j], jobs[j-1] = jobs[j-1], jobs[j]
		}
	}
	return jobs
}

// inWork reports whether a job's WorkDir is work or a folder in it, not
// another script's whose name starts with this one's (slurm_a, slurm_ab).
func inWork(line, work string) bool {
	return strings.Contains(line, "WorkDir="+work+" ") || strings.Contains(line, "WorkDir="+work+"/")
}

func wantCount(ts *testscript.TestScript, what string, got []string, arg string) {
	want, err := strconv.Atoi(arg)
	if err != nil {
		ts.Fatalf("%s: N must be a number", what)
	}
	if len(got) != want {
		ts.Fatalf("%s: %d jobs, want %d:\n%s", what, len(got), want, strings.Join(got, "\n"))
	}
}

func cmdSlurmJobs(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: slurmjobs NAME N")
	}
	wantCount(ts, "slurmjobs "+args[0], scriptJobs(ts, args[0]), args[1])
}

func cmdSlurmSubmits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: slurmsubmits NAME N")
	}
	seen := map[string]bool{}
	var submits []string
	for _, j := range scriptJobs(ts, args[0]) {
		id := strings.TrimPrefix(strings.Fields(j)[0], "JobId=")
		for _, f := range strings.Fields(j) {
			if a, ok := strings.CutPrefix(f, "ArrayJobId="); ok {
				id = a
			}
		}
		if !seen[id] {
			seen[id] = true
			submits = append(submits, j)
		}
	}
	wantCount(ts, "slurmsubmits "+args[0], submits, args[1])
}

func cmdSlurmJob(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: slurmjob NAME TEXT")
	}
	jobs := scriptJobs(ts, args[0])
	if len(jobs) == 0 {
		ts.Fatalf("no job named %s was submitted from %s", args[0], ts.Getenv("WORK"))
	}
	if strings.Contains(jobs[len(jobs)-1], args[1]) == neg {
		ts.Fatalf("scontrol show job of %s (holds %q: %v, want %v):\n%s", args[0], args[1], !neg, !neg, jobs[len(jobs)-1])
	}
}

func cmdSlurmActive(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: slurmactive NAME N")
	}
	wantCount(ts, "slurmactive "+args[0], activeJobs(ts, args[0]), args[1])
}

// activeJobs are the jobs named name of this script that are pending or
// running.
func activeJobs(ts *testscript.TestScript, name string) []string {
	var active []string
	for _, j := range scriptJobs(ts, name) {
		for _, st := range []string{"JobState=PENDING", "JobState=RUNNING", "JobState=COMPLETING", "JobState=CONFIGURING"} {
			if strings.Contains(j, st+" ") {
				active = append(active, j)
			}
		}
	}
	return active
}

func cmdSlurmEnded(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: slurmended NAME")
	}
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if len(activeJobs(ts, args[0])) == 0 {
			return
		}
	}
	ts.Fatalf("slurmended %s: still pending or running after 60s:\n%s", args[0], strings.Join(activeJobs(ts, args[0]), "\n"))
}

func cmdSlurmCancel(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: slurmcancel NAME")
	}
	for _, j := range scriptJobs(ts, args[0]) {
		id := strings.TrimPrefix(strings.Fields(j)[0], "JobId=")
		if out, err := slurmCmd(ts, "scancel", id).CombinedOutput(); err != nil {
			ts.Fatalf("scancel %s: %v: %s", id, err, out)
		}
	}
}

var caches sync.Map // *testscript.TestScript -> *nginxtest.Server

func cmdCacheStart(ts *testscript.TestScript, neg bool, args []string) {
	readOnly := len(args) == 1 && args[0] == "-readonly"
	if neg || len(args) > 1 || len(args) == 1 && !readOnly {
		ts.Fatalf("usage: cache-start [-readonly]")
	}
	dir := filepath.Join(ts.Getenv("WORK"), ".nginx")
	s, err := nginxtest.StartWith(dir, nginxtest.Options{ReadOnly: readOnly})
	if err != nil {
		ts.Fatalf("%v", err)
	}
	caches.Store(ts, s)
	ts.Defer(func() { s.Stop() })
	ts.Setenv("CACHE_URL", s.URL)
	ts.Setenv("CACHE_ROOT", s.Root)
}

func cache(ts *testscript.TestScript) *nginxtest.Server {
	s, ok := caches.Load(ts)
	if !ok {
		ts.Fatalf("no cache started: cache-start first")
	}
	return s.(*nginxtest.Server)
}

func cmdCacheStop(ts *testscript.TestScript, neg bool, args []string) {
	cache(ts).Stop()
}

func cmdCacheCorrupt(ts *testscript.TestScript, neg bool, args []string) {
	dir := filepath.Join(cache(ts).Root, "cas")
	des, err := os.ReadDir(dir)
	if err != nil || len(des) == 0 {
		ts.Fatalf("cache-corrupt: no blobs in %s: %v", dir, err)
	}
	for _, de := range des {
		p := filepath.Join(dir, de.Name())
		b, err := os.ReadFile(p)
		if err != nil || len(b) == 0 {
			continue
		}
		b[len(b)/2] ^= 0x20
		if err := os.WriteFile(p, b, 0o644); err != nil {
			ts.Fatalf("%v", err)
		}
	}
}
