package render

import (
	"bytes"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/run"
)

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time        { return c.t }
func (c *fakeClock) add(d time.Duration)   { c.t = c.t.Add(d) }
func newClock() *fakeClock                 { return &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }
func exe(name string) addr.Node            { return addr.Node{Kind: "exec", Name: name} }
func started(p *Progress, names ...string) { startAll(p, names) }
func startAll(p *Progress, names []string) {
	for _, n := range names {
		p.Running(exe(n), plan.Create, nil)
	}
}
func testProgress(tty bool) (*Progress, *bytes.Buffer, *fakeClock) {
	var out bytes.Buffer
	clk := newClock()
	p := &Progress{W: &out, TTY: tty, Now: clk.now, Total: 4}
	p.running = map[addr.Node]*nodeStatus{}
	p.uploads = map[string]*upload{}
	p.started = clk.now()
	p.Heartbeat = DefaultHeartbeat
	return p, &out, clk
}

var escapes = regexp.MustCompile("\x1b\\[[0-9;]*[A-Za-z]")

// TestStatusFitsTheTerminal: every line of the status is cut to the
// terminal's width, however long the address or the log line, and a
// redraw erases exactly the rows the last one drew.
func TestStatusFitsTheTerminal(t *testing.T) {
	for _, cols := range []int{40, 60, 120} {
		p, out, clk := testProgress(true)
		p.Width = func() int { return cols }
		p.Meters = map[addr.Node]Meter{exe("train_a_rather_long_node_name"): {Pattern: regexp.MustCompile(`step (\d+)`), Total: 372}}
		started(p, "prepare", "train_a_rather_long_node_name")
		clk.add(90 * time.Second)
		p.Output(exe("train_a_rather_long_node_name"), "step 180: loss 0.125 lr 3e-05 grad_norm 1.5 tokens/s 48213 "+strings.Repeat("x", 200))
		p.Output(exe("prepare"), "\x1b[32mwriting shard 7 of 8\x1b[0m\tto /data/very/long/path/"+strings.Repeat("y", 100))
		p.redraw()
		rows := 0
		for _, seg := range strings.Split(out.String(), "\n") {
			plain := escapes.ReplaceAllString(seg, "")
			plain = strings.TrimPrefix(plain, "\r")
			if strings.HasPrefix(plain, "  ⋯ ") || strings.Contains(plain, "nodes done") {
				rows++
				if w := textWidth(plain); w >= cols {
					t.Errorf("%d columns: a status line takes %d: %q", cols, w, plain)
				}
			}
		}
		if rows == 0 {
			t.Fatalf("%d columns: no status drawn:\n%s", cols, out.String())
		}
		if len(p.drawn) != 3 {
			t.Errorf("%d columns: drew %d lines, want the header and 2 nodes", cols, len(p.drawn))
		}
		out.Reset()
		p.clear()
		if got := out.String(); got != "\r\x1b[3A\x1b[J" {
			t.Errorf("%d columns: clear wrote %q, want to move up the 3 rows drawn", cols, got)
		}
	}
}

// TestClearAfterNarrowing: lines drawn for a wide terminal take more rows
// once it is narrower (the terminal reflows them); clear moves up as many.
func TestClearAfterNarrowing(t *testing.T) {
	p, out, _ := testProgress(true)
	cols := 120
	p.Width = func() int { return cols }
	started(p, "train")
	p.Output(exe("train"), strings.Repeat("z", 200))
	p.redraw()
	if w := p.drawn[1]; w < 100 || w >= 120 {
		t.Fatalf("node line is %d columns wide, want a long one under 120", w)
	}
	cols = 60
	out.Reset()
	p.clear()
	if got := out.String(); got != "\r\x1b[3A\x1b[J" {
		t.Errorf("clear after narrowing wrote %q, want 1 row for the header and 2 for the wrapped line", got)
	}
}

func TestStatusLine(t *testing.T) {
	clk := newClock()
	start := clk.now()
	cases := []struct {
		name string
		n    nodeStatus
		want string
	}{
		{"last line", nodeStatus{addr: exe("prep"), since: start, last: "reading data"}, "  ⋯ exec.prep  2:30  reading data"},
		{"steps and ETA", nodeStatus{addr: exe("train"), since: start, step: 180, total: 360, firstStep: 60, firstStepAt: start.Add(30 * time.Second), lastStepAt: start.Add(150 * time.Second), last: "step 180"},
			"  ⋯ exec.train  2:30  step 180/360 50%  ETA 3:00  step 180"},
		{"last run's duration", nodeStatus{addr: exe("eval"), since: start, previous: 10 * time.Minute}, "  ⋯ exec.eval  2:30  ETA 7:30"},
		{"over the last run", nodeStatus{addr: exe("eval"), since: start, previous: time.Minute}, "  ⋯ exec.eval  2:30  last run 1:00"},
		{"download", nodeStatus{addr: exe("get"), since: start, xfer: &transfer{done: 30 << 20, total: 120 << 20, first: start.Add(140 * time.Second), firstDone: 10 << 20}},
			"  ⋯ exec.get  2:30  30.0 MiB of 120.0 MiB 25%, 2.0 MiB/s  ETA 0:45"},
		{"upload", nodeStatus{addr: exe("put"), since: start, xfer: &transfer{dir: Upload, done: 1 << 30, total: -1, first: start}},
			"  ⋯ exec.put  2:30  up 1.0 GiB, 6.8 MiB/s"},
	}
	now := start.Add(150 * time.Second)
	for _, c := range cases {
		got, _ := statusLine(&c.n, now, 200, Colors{})
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

// TestHeartbeat: without a terminal, a node that printed nothing for a
// heartbeat gets a line saying what it is doing; one that printed does not.
func TestHeartbeat(t *testing.T) {
	p, out, clk := testProgress(false)
	p.Meters = map[addr.Node]Meter{exe("train"): {Pattern: regexp.MustCompile(`step (\d+)`), Total: 372}}
	started(p, "train", "chatty")
	clk.add(10 * time.Second)
	p.Output(exe("train"), "step 120")
	clk.add(60 * time.Second)
	p.Output(exe("train"), "step 180")
	clk.add(20 * time.Second)
	p.Output(exe("chatty"), "still talking")
	clk.add(15 * time.Second)
	out.Reset()
	p.heartbeats()
	if got, want := out.String(), "03:05:50 exec.train still running (1m45s, last step 180/372, ETA 2m37s)\n"; got != want {
		t.Errorf("heartbeat:\n got %q\nwant %q", got, want)
	}
	out.Reset()
	p.heartbeats()
	if out.Len() != 0 {
		t.Errorf("a second heartbeat right after the first: %q", out.String())
	}
}

// TestFailurePrintedOnce: a failure says the node, the error and the log;
// the log's last lines are printed only when they are not the lines right
// above.
func TestFailurePrintedOnce(t *testing.T) {
	fail := run.NodeResult{Addr: exe("bad"), Outcome: run.Failed, Err: errors.New("exit status 3"), Duration: time.Second,
		Log: "/p/.kiln/logs/exec.bad.log", LogTail: []string{"line 1", "oops"}}
	p, out, _ := testProgress(false)
	started(p, "bad", "other")
	p.Output(exe("bad"), "line 1")
	p.Output(exe("bad"), "oops")
	p.Finished(fail)
	got := out.String()
	if strings.Count(got, "oops") != 1 || !strings.Contains(got, "exec.bad failed after 1s: exit status 3") || !strings.Contains(got, "log: /p/.kiln/logs/exec.bad.log (kiln logs exec.bad)") {
		t.Errorf("streamed failure:\n%s", got)
	}

	p, out, _ = testProgress(false)
	started(p, "bad", "other")
	p.Output(exe("bad"), "line 1")
	p.Output(exe("bad"), "oops")
	p.Output(exe("other"), "something else")
	p.Finished(fail)
	if got := out.String(); strings.Count(got, "oops") != 2 || !strings.Contains(got, "    | oops") {
		t.Errorf("failure after other output must show the tail again:\n%s", got)
	}

	p, out, _ = testProgress(false)
	p.Quiet = true
	started(p, "bad")
	p.Output(exe("bad"), "oops")
	p.Finished(fail)
	if got := out.String(); strings.Count(got, "oops") != 1 || !strings.Contains(got, "    | oops") {
		t.Errorf("quiet failure must show the tail:\n%s", got)
	}
}

func TestPlainText(t *testing.T) {
	for in, want := range map[string]string{
		"\x1b[1;32mok\x1b[0m":     "ok",
		"10%\r50%\r100%":          "100%",
		"a\tb":                    "a    b",
		"\x1b]0;title\x07visible": "visible",
		"  spaced  ":              "spaced",
		"bell\x07 and \x00nul":    "bell and nul",
	} {
		if got := plainText(in); got != want {
			t.Errorf("plainText(%q) = %q, want %q", in, got, want)
		}
	}
	if got := fit("日本語のログ", 7); got != "日本語…" || textWidth(got) > 7 {
		t.Errorf("fit of wide characters = %q (%d columns)", got, textWidth(got))
	}
}

// TestUploadsShown: a result pushed to a remote cache after its node
// finished has a line of its own in the status until the push ends, and a
// heartbeat without a terminal.
func TestUploadsShown(t *testing.T) {
	p, out, clk := testProgress(true)
	p.Width = func() int { return 100 }
	p.Upload("exec.train", 0, 300<<20)
	clk.add(10 * time.Second)
	p.Upload("exec.train", 100<<20, 300<<20)
	p.redraw()
	screen := escapes.ReplaceAllString(out.String(), "")
	for _, want := range []string{"0/4 nodes done, 0 running, 1 uploading", "  ↑ exec.train  0:10  up 100.0 MiB of 300.0 MiB 33%, 10.0 MiB/s  ETA 0:20"} {
		if !strings.Contains(screen, want) {
			t.Errorf("status lacks %q:\n%s", want, screen)
		}
	}
	p.UploadDone("exec.train")
	if len(p.drawn) != 0 {
		t.Errorf("the status still draws %d lines after the push ended", len(p.drawn))
	}

	p, out, clk = testProgress(false)
	p.Upload("exec.train", 0, 300<<20)
	clk.add(40 * time.Second)
	p.Upload("exec.train", 200<<20, 300<<20)
	p.heartbeats()
	if got, want := out.String(), "03:04:45 exec.train still uploading to the remote cache (40s, up 200.0 MiB of 300.0 MiB 66%, 5.0 MiB/s, ETA 20s)\n"; got != want {
		t.Errorf("heartbeat:\n got %q\nwant %q", got, want)
	}
}

// TestProgressShowsDevices: the node's start line, its line in the live
// status and its heartbeat name the devices it holds.
func TestProgressShowsDevices(t *testing.T) {
	p, out, clk := testProgress(false)
	a := addr.Node{Kind: "exec", Name: "eval", Key: addr.IntKey(1)}
	p.Devices(a, map[string][]int{"npu": {4, 5, 6, 7}})
	p.Running(a, plan.Create, []plan.Reason{{Kind: "new"}})
	if got, want := out.String(), "03:04:05 exec.eval[1] create on npu 4-7: never built\n"; got != want {
		t.Errorf("start line %q, want %q", got, want)
	}
	clk.add(DefaultHeartbeat)
	out.Reset()
	p.heartbeats()
	if got := out.String(); !strings.Contains(got, "exec.eval[1] still running (30s, on npu 4-7, no output yet)") {
		t.Errorf("heartbeat %q does not name the devices", got)
	}
	line, _ := statusLine(p.running[a], clk.now(), 120, Colors{})
	if !strings.Contains(line, "exec.eval[1]  0:30  npu 4-7") {
		t.Errorf("status line %q does not show the devices beside the node", line)
	}
}
