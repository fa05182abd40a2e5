package slurm

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestRequestArgs(t *testing.T) {
	cases := []struct {
		name string
		req  Request
		want []string
	}{
		{"minimal", Request{Name: "exec.a", Command: []string{"true"}},
			[]string{"--parsable", "--no-requeue", "--export=NONE", "--job-name=exec.a"}},
		{"everything", Request{
			Name: `exec.train["lr 3"]`, Partition: "a2", Account: "llm", QOS: "high",
			GRES: map[string]int64{"npu": 8, "license": 0, "fpga": 1}, CPUsPerTask: 32, Mem: "256G",
			Time: 90*time.Minute + time.Second, Nodes: 2, NTasksPerNode: 1,
			Chdir: "/shared/p", Output: "/shared/p/.kiln/slurm/job.out", Flags: []string{"--exclusive", "--constraint=a2"},
			Command: []string{"kiln", "job", "run", "spec.json"},
		}, []string{
			"--parsable", "--no-requeue", "--export=NONE", `--job-name=exec.train["lr 3"]`,
			"--output=/shared/p/.kiln/slurm/job.out", "--chdir=/shared/p", "--partition=a2", "--account=llm", "--qos=high",
			"--nodes=2", "--ntasks-per-node=1", "--cpus-per-task=32", "--mem=256G", "--gres=fpga:1,npu:8", "--time=91",
			"--exclusive", "--constraint=a2",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.req.Args()); diff != "" {
				t.Errorf("Args (-want +got):\n%s", diff)
			}
		})
	}
}

func TestScriptQuotes(t *testing.T) {
	r := Request{Command: []string{"/opt/kiln bin/kiln", "job", "run", "/s/it's.json"}}
	want := "#!/bin/sh\n# Written by kiln: the job runs one node; see the spec it names.\nexec '/opt/kiln bin/kiln' job run '/s/it'\\''s.json'\n"
	if got := r.Script(); got != want {
		t.Errorf("Script =\n%s\nwant\n%s", got, want)
	}
}

func TestArrayScript(t *testing.T) {
	r := Request{Array: []int{0, 1, 2, 4, 6, 7}, After: []string{"7", "8_1"}, Output: "/j/%a/job.out", Command: []string{"/opt/kiln", "job", "run", "/j/it's/%a/spec.json"}}
	want := "#!/bin/sh\n# Written by kiln: the job runs one node; see the spec it names.\nexec /opt/kiln job run '/j/it'\\''s/'\"$SLURM_ARRAY_TASK_ID\"/spec.json\n"
	if got := r.Script(); got != want {
		t.Errorf("Script =\n%s\nwant\n%s", got, want)
	}
	args := strings.Join(r.Args(), " ")
	for _, a := range []string{"--array=0-2,4,6-7", "--dependency=afterok:7:8_1", "--output=/j/%a/job.out"} {
		if !strings.Contains(args, a) {
			t.Errorf("Args = %s, want %s", args, a)
		}
	}
	r.After = []string{"7:8"}
	if err := r.Check(); err == nil {
		t.Errorf("Check accepted a job id with a colon to start after")
	}
}

func TestParseStatus(t *testing.T) {
	// squeue -r: the elements of array 10 pending under its own id and
	// running as jobs 11 and 12.
	sq := "2|2|N/A|FAILED|NonZeroExitCode|vm|768|\n4|4|N/A|PENDING|Resources||0|\n3|3|N/A|RUNNING|None|vm|0|\n5|5|N/A|CANCELLED|None|vm|15|\n" +
		"10|10|2|PENDING|JobArrayTaskLimit||0|\n11|10|0|RUNNING|None|vm|0|\n12|10|1|FAILED|NonZeroExitCode|vm|256|\n"
	want := map[string]Status{
		"2":    {ID: "2", State: Failed, Reason: "NonZeroExitCode", Nodes: "vm", ExitCode: 3},
		"4":    {ID: "4", State: Pending, Reason: "Resources"},
		"3":    {ID: "3", State: Running, Reason: "None", Nodes: "vm"},
		"5":    {ID: "5", State: Cancelled, Reason: "None", Nodes: "vm", Signal: 15},
		"10_2": {ID: "10_2", State: Pending, Reason: "JobArrayTaskLimit"},
		"10_0": {ID: "10_0", State: Running, Reason: "None", Nodes: "vm"},
		"10_1": {ID: "10_1", State: Failed, Reason: "NonZeroExitCode", Nodes: "vm", ExitCode: 1},
	}
	if diff := cmp.Diff(want, parseSqueue(sq)); diff != "" {
		t.Errorf("parseSqueue (-want +got):\n%s", diff)
	}
	sa := "7|CANCELLED by 0|0:15|a[1-2]|None\n8|OUT_OF_MEMORY|0:125|a3|None\n9|COMPLETED|0:0|a4|None\n"
	want = map[string]Status{
		"7": {ID: "7", State: Cancelled, Nodes: "a[1-2]", Reason: "None", Signal: 15},
		"8": {ID: "8", State: OutOfMemory, Nodes: "a3", Reason: "None", Signal: 125},
		"9": {ID: "9", State: Completed, Nodes: "a4", Reason: "None"},
	}
	if diff := cmp.Diff(want, parseSacct(sa)); diff != "" {
		t.Errorf("parseSacct (-want +got):\n%s", diff)
	}
	shown := map[Status]string{
		{State: Pending, Reason: "Priority"}:  "PENDING (Priority)",
		{State: Running, Nodes: "a2-07"}:      "RUNNING on a2-07",
		{State: Failed, ExitCode: 3}:          "FAILED with exit code 3",
		{State: Failed, Signal: 9}:            "FAILED by signal 9",
		{State: Timeout, ExitCode: 0}:         "TIMEOUT",
		{State: Pending, Reason: "None"}:      "PENDING",
		{State: Completing, Nodes: "a[1-2]"}:  "COMPLETING on a[1-2]",
		{State: OutOfMemory, Signal: 9}:       "OUT_OF_MEMORY",
		{State: Unknown}:                      "UNKNOWN",
		{State: NodeFail, Nodes: "a1"}:        "NODE_FAIL",
		{State: Cancelled, Reason: "None"}:    "CANCELLED",
		{State: Preempted, Reason: "Preempt"}: "PREEMPTED",
	}
	for s, want := range shown {
		if got := s.String(); got != want {
			t.Errorf("%+v shows %q, want %q", s, got, want)
		}
	}
}

func TestJournal(t *testing.T) {
	j := &Journal{Dir: t.TempDir()}
	job := Job{Key: "abc", Addr: "exec.a", ID: "42", Dir: "/s/j", Run: "/s/r", Submitted: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Submissions: 1}
	if _, ok, err := j.Get("abc"); ok || err != nil {
		t.Fatalf("Get on an empty journal: %v %v", ok, err)
	}
	if err := j.Put(job); err != nil {
		t.Fatal(err)
	}
	got, ok, err := j.Get("abc")
	if err != nil || !ok {
		t.Fatalf("Get: %v %v", ok, err)
	}
	if diff := cmp.Diff(job, got); diff != "" {
		t.Errorf("Get (-put +got):\n%s", diff)
	}
	list, err := j.List()
	if err != nil || len(list) != 1 {
		t.Fatalf("List: %v %v", list, err)
	}
	if err := j.Remove("abc"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := j.Get("abc"); ok {
		t.Error("the job is still journaled after Remove")
	}
	if err := j.Put(Job{Key: "../x", ID: "1"}); err == nil {
		t.Error("Put accepted a key with a slash")
	}
}

// A poll that fails the same way twice reads the same, whatever jobs it
// asked about and in whatever order.
func TestProblemLeavesOutTheJobs(t *testing.T) {
	fail := func(ids string) error {
		return fmt.Errorf("query: %w", &CommandError{Command: "squeue -h -t all -j " + ids + " -O " + squeueFormat, Err: errors.New("exit status 1"), Output: "slurm_load_jobs error: Unable to contact slurm controller\n"})
	}
	a, b := Problem(fail("3,5,7")), Problem(fail("7,3"))
	if a != b {
		t.Errorf("Problem differs with the job list:\n%s\n%s", a, b)
	}
	if want := "squeue: exit status 1: slurm_load_jobs error: Unable to contact slurm controller"; a != want {
		t.Errorf("Problem = %q, want %q", a, want)
	}
}
