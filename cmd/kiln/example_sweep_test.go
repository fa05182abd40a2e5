package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestExampleSweep runs examples/sweep as its README says: a sweep of three
// learning rates, listed by kiln runs with what differs and compared by
// kiln metrics diff and kiln report -runs; a preempted trainer that the
// retry resumes from its checkpoint; going back to the first learning rate
// restores its result, and kiln.lock.hcl stays as the sweep left it.
func TestExampleSweep(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, filepath.Join("..", "..", "examples", "sweep"), dir)
	must := func(args ...string) string {
		t.Helper()
		out, stderr, code := kilnRun(t, args...)
		if code != 0 {
			t.Fatalf("kiln %s: exit %d\n%s\n%s", strings.Join(args, " "), code, out, stderr)
		}
		return out
	}
	var first []byte
	for _, lr := range []string{"0.02", "0.05", "0.1"} {
		must("apply", "-var", "lr="+lr, dir)
		if first == nil {
			var err error
			if first, err = os.ReadFile(filepath.Join(dir, "kiln.lock.hcl")); err != nil {
				t.Fatal(err)
			}
		}
	}
	runs := must("runs", dir)
	for _, want := range []string{`(?m)^  differs  lr=0\.02$`, `(?m)^  differs  lr=0\.1$`, `(?m)^  changed  var\.lr: 0\.05 → 0\.1$`,
		`(?m)^  exec\.train +built +train/loss [0-9.e-]+ \(step 40, best [0-9.e-]+ at [0-9]+\); val/loss `} {
		if !regexp.MustCompile(want).MatchString(runs) {
			t.Errorf("kiln runs does not match %s:\n%s", want, runs)
		}
	}
	if diff := must("metrics", "diff", "1", "3", dir); !regexp.MustCompile(`(?m)^exec\.train +val/loss +[0-9.]+ +[0-9.]+ +[-+][0-9.e-]+$`).MatchString(diff) {
		t.Errorf("kiln metrics diff 1 3:\n%s", diff)
	}
	report := filepath.Join(dir, "report.html")
	must("report", "-runs", "3", "-o", report, dir)
	html, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), `data-node="exec.train" data-group="loss" data-lines="6"`) {
		t.Errorf("the report does not compare the three runs' train and val loss on one chart")
	}

	// Preempted at step 12 on its first attempt, the trainer resumes from
	// the checkpoint of step 10 on the retry.
	must("apply", "-var", "preempt_at=12", dir)
	logs := must("logs", "exec.train", dir)
	for _, want := range []string{"preempted at step 12", "resumed from step 10 (attempt 2)", "step:40 - "} {
		if !strings.Contains(logs, want) {
			t.Errorf("the trainer's log lacks %q:\n%s", want, logs)
		}
	}

	// Back to the first learning rate: restored, and the lock as it was.
	if out := must("apply", "-var", "lr=0.02", dir); !strings.Contains(out, "exec.train restored") {
		t.Errorf("kiln apply -var lr=0.02 did not restore exec.train:\n%s", out)
	}
	after, err := os.ReadFile(filepath.Join(dir, "kiln.lock.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	if string(after) != string(first) {
		t.Errorf("kiln.lock.hcl after going back to lr=0.02 is not the one its first run wrote:\n%s\nwant:\n%s", after, first)
	}
}
