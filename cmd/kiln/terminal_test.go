package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// terminal is a tmux session running one command in a real pseudo-terminal,
// on a tmux server of its own.
type terminal struct {
	t      *testing.T
	socket string
}

// newTerminal starts cmd (a shell command) in a cols×rows terminal. The
// kiln it runs is this test binary under the name kiln (TestMain runs the
// CLI when called so).
func newTerminal(t *testing.T, dir string, cols, rows int, cmd string) *terminal {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is not installed: apt-get install tmux (.ci/run installs it)")
	}
	bin := filepath.Join(t.TempDir(), "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, filepath.Join(bin, "kiln")); err != nil {
		t.Fatal(err)
	}
	tm := &terminal{t: t, socket: fmt.Sprintf("kiln-test-%d-%d", os.Getpid(), time.Now().UnixNano())}
	script := fmt.Sprintf("unset NO_COLOR; cd %q && export PATH=%q:$PATH && %s; echo KILN-EXIT=$?; sleep 600", dir, bin, cmd)
	tm.tmux("new-session", "-d", "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows), "-s", "t", script)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", tm.socket, "kill-server").Run() })
	return tm
}

func (tm *terminal) tmux(args ...string) string {
	tm.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", tm.socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// screen is what the terminal shows now, without trailing blank lines;
// with escapes, its colour sequences too.
func (tm *terminal) screen(escapes bool) string {
	args := []string{"capture-pane", "-p", "-t", "t"}
	if escapes {
		args = append(args, "-e")
	}
	return strings.TrimRight(tm.tmux(args...), "\n ")
}

// waitFor polls the screen until ok says it is the one wanted.
func (tm *terminal) waitFor(what string, ok func(screen string) bool) string {
	tm.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		s := tm.screen(false)
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("the terminal never showed %s; it shows:\n%s", what, s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

const livePipeline = `
exec "prepare" {
  command = "echo preparing shard 1 of 8; echo preparing shard 7 of 8 from /data/corpus/en/wikipedia-2026-01/part-00007.parquet; while [ ! -e ${path.root}/go ]; do sleep 0.05; done; echo done > $KILN_OUT/data.txt"
}

exec "train" {
  progress = "step (\\d+)"
  total    = 372
  command  = "echo step 10 loss 0.75; sleep 2; echo step 20 loss 0.25 lr 3e-05 grad_norm 1.5 tokens/s 48213; while [ ! -e ${path.root}/go ]; do sleep 0.05; done; echo ok > $KILN_OUT/model.txt"
}

exec "evaluate_on_the_held_out_benchmark_suite" {
  command = "echo scoring 1319 problems with the sandbox, 16 at a time; while [ ! -e ${path.root}/go ]; do sleep 0.05; done; echo 0.67 > $KILN_OUT/score.txt"
}

exec "report" {
  command = "cat ${exec.prepare.out}/data.txt ${exec.train.out}/model.txt ${exec.evaluate_on_the_held_out_benchmark_suite.out}/score.txt > $KILN_OUT/report.txt"
}
`

// TestLiveStatusInATerminal runs kiln apply in a real terminal, 120 columns
// wide, then narrows it to 60: the status fits the width on every redraw
// (no line reaches the edge, so none wraps), is drawn once (no copies left
// behind by a redraw), and shows the nodes done, each node's elapsed time,
// progress and last log line. The screen captures are golden files
// (go test -run TestLiveStatusInATerminal -update rewrites them).
func TestLiveStatusInATerminal(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "pipeline.hcl"), []byte(livePipeline), 0o644); err != nil {
		t.Fatal(err)
	}
	tm := newTerminal(t, dir, 120, 30, "kiln apply -parallelism 4")
	release := func() { _ = os.WriteFile(filepath.Join(dir, "go"), nil, 0o644) }
	t.Cleanup(func() {
		// Let the nodes end before the folder goes, whatever failed.
		release()
		tm.waitFor("the apply's end", func(s string) bool { return strings.Contains(s, "KILN-EXIT=") })
	})
	running := func(s string) bool {
		return strings.Contains(s, "0/4 nodes done, 3 running") && strings.Contains(s, "step 20/372") &&
			strings.Contains(s, "preparing shard 7") && strings.Contains(s, "scoring")
	}
	wide := tm.waitFor("the three nodes running", running)
	checkStatus(t, wide, 120)
	golden(t, filepath.Join("testdata", "live", "status-120.txt"), statusBlock(wide)+"\n")

	tm.tmux("resize-window", "-t", "t", "-x", "60")
	narrow := tm.waitFor("the status redrawn for 60 columns", func(s string) bool {
		return strings.Contains(s, "0/4 nodes done, 3 running") && strings.Contains(s, "step 20/372") && maxWidth(statusBlock(s)) < 60
	})
	checkStatus(t, narrow, 60)
	golden(t, filepath.Join("testdata", "live", "status-60.txt"), statusBlock(narrow)+"\n")

	release()
	done := tm.waitFor("the apply's end", func(s string) bool { return strings.Contains(s, "KILN-EXIT=") })
	if !strings.Contains(done, "KILN-EXIT=0") || !strings.Contains(done, "Apply: 4 built") {
		t.Errorf("the apply did not end well:\n%s", done)
	}
	if strings.Contains(done, "nodes done") || strings.Contains(done, "⋯") {
		t.Errorf("the status was not erased at the end:\n%s", done)
	}
}

// checkStatus: every line fits, and the status is there exactly once.
func checkStatus(t *testing.T, screen string, cols int) {
	t.Helper()
	block := statusBlock(screen)
	if n := strings.Count(screen, "nodes done"); n != 1 {
		t.Errorf("%d columns: the header is on the screen %d times (a redraw left copies):\n%s", cols, n, screen)
	}
	for _, l := range strings.Split(block, "\n") {
		if w := len([]rune(l)); w >= cols {
			t.Errorf("%d columns: a status line takes %d columns: %q", cols, w, l)
		}
	}
	for _, node := range []string{"exec.prepare", "exec.train", "exec.evaluate_on"} {
		if n := strings.Count(block, "⋯ "+node); n != 1 {
			t.Errorf("%d columns: %s is in the status %d times:\n%s", cols, node, n, block)
		}
	}
}

func maxWidth(s string) int {
	m := 0
	for _, l := range strings.Split(s, "\n") {
		m = max(m, len([]rune(l)))
	}
	return m
}

// statusBlock is the live status at the bottom of a screen, its times
// written as m:ss so the capture does not depend on the machine's speed.
func statusBlock(screen string) string {
	i := strings.LastIndex(screen, "\n")
	lines := strings.Split(screen, "\n")
	for j := len(lines) - 1; j >= 0; j-- {
		if strings.Contains(lines[j], "nodes done") {
			i = j
			break
		}
	}
	block := strings.Join(lines[i:], "\n")
	return regexp.MustCompile(`\b\d+:\d\d\b`).ReplaceAllString(block, "m:ss")
}

// TestColourInATerminal: on a terminal kiln colours the plan, unless
// NO_COLOR is set, -no-color is given or TERM is dumb; TERM=dumb also
// turns the live status into plain lines.
func TestColourInATerminal(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "pipeline.hcl"), []byte("exec \"a\" {\n  command = \"sleep 0.3; echo a > $KILN_OUT/a\"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sgr := regexp.MustCompile("\x1b\\[[0-9;]*m")
	cases := []struct {
		name, cmd string
		colour    bool
	}{
		{"default", "kiln plan", true},
		{"NO_COLOR", "NO_COLOR=1 kiln plan", false},
		{"-no-color", "kiln plan -no-color", false},
		{"TERM=dumb", "TERM=dumb kiln plan", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tm := newTerminal(t, dir, 80, 16, c.cmd)
			tm.waitFor("the plan", func(s string) bool { return strings.Contains(s, "KILN-EXIT=") })
			screen := tm.screen(true)
			if !strings.Contains(screen, "exec.a") {
				t.Fatalf("no plan on the screen:\n%s", screen)
			}
			if got := sgr.MatchString(screen); got != c.colour {
				t.Errorf("colour = %v, want %v:\n%q", got, c.colour, screen)
			}
		})
	}
	t.Run("TERM=dumb apply", func(t *testing.T) {
		tm := newTerminal(t, dir, 80, 16, "TERM=dumb kiln apply")
		s := tm.waitFor("the apply", func(s string) bool { return strings.Contains(s, "KILN-EXIT=") })
		if !regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d exec\.a built`).MatchString(s) || strings.Contains(s, "nodes done") {
			t.Errorf("with TERM=dumb, apply must print plain timestamped lines and no live status:\n%s", s)
		}
	})
}
