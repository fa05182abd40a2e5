package report

import (
	"bytes"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/history"
	"github.com/kilnbuild/kiln/engine/metrics"
	"github.com/kilnbuild/kiln/engine/plan"
)

// TestModel checks the numbers the views show: queue and run times, the
// critical path, NPU-hours and the class that paints each node.
func TestModel(t *testing.T) {
	dir := t.TempDir()
	m, err := build(Options{Run: fixtureRun(t, dir, 1, 1)})
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		Class, Outcome  string
		Queued, Ran     time.Duration
		NPUHours        float64
		Critical, Drawn bool
	}
	var rows []got
	for _, w := range m.rows {
		rows = append(rows, got{w.class, w.outcome, w.queued, w.ran, w.npuHours, w.critical, w.drawn})
	}
	want := []got{
		{"noop", "up-to-date", 100 * time.Millisecond, 100 * time.Millisecond, 0, true, true},
		// Ready when git_repo.src ended at 0.2s, its turn at 0.3s.
		{"rebuild", "built", 100 * time.Millisecond, 2500 * time.Millisecond, 0, true, true},
		// Ready at 3s, its 8 NPUs at 5s: 2s queued, then an hour on 8 NPUs.
		{"create", "built", 2 * time.Second, time.Hour, 8, true, true},
		{"failed", "failed", 100 * time.Millisecond, 300 * time.Millisecond, 0, true, true},
		{"skipped", "skipped", 0, 0, 0, false, true},
		{"restore", "restored", 100 * time.Millisecond, 300 * time.Millisecond, 0, false, true},
	}
	if diff := cmp.Diff(want, rows, cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-9 })); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{0, 1, 2, 3}, m.critical); diff != "" {
		t.Errorf("critical path (-want +got):\n%s", diff)
	}
	if m.npuHours != 8 {
		t.Errorf("NPU-hours %v, want 8", m.npuHours)
	}
}

func TestMarkdown(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	if err := Markdown(&b, Options{Run: fixtureRun(t, dir, 2, 1), Compare: fixtureRun(t, t.TempDir(), 1, 0.5)}); err != nil {
		t.Fatal(err)
	}
	golden(t, "run.md", b.String())
}

// TestHTML checks the page's structure: one timeline bar and one graph node
// per node, one table row per node, a dot per logged step on each curve and
// the compared run's curve, escaped text, and the same bytes every time.
func TestHTML(t *testing.T) {
	dir := t.TempDir()
	o := Options{Run: fixtureRun(t, dir, 2, 1), Compare: fixtureRun(t, t.TempDir(), 1, 0.5), LogDir: dir}
	var b, again bytes.Buffer
	if err := HTML(&b, o); err != nil {
		t.Fatal(err)
	}
	if err := HTML(&again, o); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if page != again.String() {
		t.Error("two renderings of the same run differ")
	}
	count := func(re string) int { return len(regexp.MustCompile(re).FindAllStringIndex(page, -1)) }
	for _, c := range []struct {
		what string
		re   string
		want int
	}{
		{"timeline bars", `<rect class="bar [a-z]+( crit)?" data-node=`, 6},
		{"graph nodes", `<g class="dnode"`, 6},
		{"table rows", `<tr id="node-\d+"`, 6},
		{"charts", `<svg class="chart"`, 2},
		{"dots of this run", `<circle class="pt run"`, 20},
		{"dots of the compared run", `<circle class="pt cmp"`, 20},
		{"critical bars", `class="bar [a-z]+ crit"`, 4},
		{"scripts", `<script`, 0},
		{"remote resources", `(src|href)="(https?:)?//`, 0},
	} {
		if got := count(c.re); got != c.want {
			t.Errorf("%s: %d, want %d", c.what, got, c.want)
		}
	}
	for _, want := range []string{
		`exec.x[&#34;&lt;b&gt;bold&lt;/b&gt;&#34;]`,
		`input data/train.jsonl changed: 11832bc4a41e → bad9c5dd2de9`,
		`failed (exit 3), 2 attempts`,
		`<td class="num">8.000</td>`,
		`Critical path: <a href="#node-0">git_repo.src</a> → <a href="#node-1">exec.prep</a> → <a href="#node-2">exec.train</a> → <a href="#node-3">exec.eval</a>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, "<b>bold</b>") {
		t.Error("a node address reached the page unescaped")
	}
}

// TestLargeRun: a run of 1,000 nodes draws the ones that did something.
func TestLargeRun(t *testing.T) {
	dir := t.TempDir()
	r := &history.Run{ID: 1, Started: t0, Ended: at(10), Root: dir, Dir: dir, Status: history.Complete}
	for i := range 1000 {
		n := &history.Node{Addr: "exec.n" + strconv.Itoa(i), Kind: "exec",
			Result: history.Result{Action: "no-op", Outcome: "up-to-date", Started: at(0.1), Ended: at(0.1)}}
		if i > 0 {
			n.Deps = []int{i - 1}
		}
		if i%100 == 0 {
			n.Result = history.Result{Action: "create", Outcome: "built", Started: at(float64(i) / 100), Began: at(float64(i) / 100), Ended: at(float64(i)/100 + 0.5)}
		}
		r.Nodes = append(r.Nodes, n)
	}
	var b bytes.Buffer
	if err := HTML(&b, Options{Run: r}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if got := strings.Count(page, `data-node=`) / 2; got != 10 {
		t.Errorf("drew %d nodes, want the 10 that ran", got)
	}
	if !strings.Contains(page, "990 nodes that were up to date are left off") {
		t.Error("the page does not say how many nodes it leaves off")
	}
	if got := strings.Count(page, `<tr id="node-`); got != 1000 {
		t.Errorf("the table has %d rows, want 1000", got)
	}
}

// TestReduce: a curve of 100,000 points keeps, per pixel column, its first,
// lowest, highest and last point.
func TestReduce(t *testing.T) {
	var pts []metrics.Point
	for s := range 100000 {
		pts = append(pts, metrics.Point{Step: int64(s), Value: math.Sin(float64(s) / 1000)})
	}
	pts[54321].Value = 7
	got := reduce(pts, 240)
	if len(got) > 4*240+4 || len(got) < 240 {
		t.Errorf("reduced to %d points", len(got))
	}
	found := false
	for k, p := range got {
		if p.Value == 7 {
			found = true
		}
		if k > 0 && p.Step <= got[k-1].Step {
			t.Fatalf("steps out of order at %d", k)
		}
	}
	if !found {
		t.Error("the reduced curve lost its maximum")
	}
}

// TestUnfinishedRuns: nodes without a finished entry are running and
// pending in a running apply, interrupted and not run in one kiln left.
func TestUnfinishedRuns(t *testing.T) {
	for status, want := range map[history.Status][]string{
		history.Running:     {"built", "running", "pending"},
		history.Interrupted: {"built", "interrupted", "not run"},
	} {
		dir := t.TempDir()
		r := &history.Run{ID: 1, Started: t0, Root: dir, Dir: dir, Status: status, Nodes: []*history.Node{
			{Addr: "exec.a", Kind: "exec", Result: history.Result{Action: "create", Outcome: "built", Started: at(0), Began: at(0), Ended: at(1)}},
			{Addr: "exec.b", Kind: "exec", Deps: []int{0}, Result: history.Result{Action: "create", Started: at(1), Began: at(2)}},
			{Addr: "exec.c", Kind: "exec", Deps: []int{1}},
		}}
		m, err := build(Options{Run: r, Now: at(60)})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, w := range m.rows {
			got = append(got, w.outcome)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s run (-want +got):\n%s", status, diff)
		}
		if status == history.Running && m.rows[1].ran != 58*time.Second {
			t.Errorf("a node running since 2s shows %v at 60s", m.rows[1].ran)
		}
	}
}

// TestMarkdownHostileNames: for_each keys and metric names that hold HTML
// or Markdown show as text in the report's Markdown: in code spans that
// their backticks cannot end, and escaped where they are named in a
// reason.
func TestMarkdownHostileNames(t *testing.T) {
	dir := t.TempDir()
	bad := `exec.t["<script>alert(1)</script>"]`
	r := &history.Run{ID: 1, Started: t0, Ended: at(10), Status: history.Complete, Dir: filepath.Join(dir, ".kiln", "runs", "1"),
		Nodes: []*history.Node{
			{Addr: bad, Kind: "exec", Executor: "local", Metrics: true, Result: history.Result{Action: "create", Reasons: []plan.Reason{{Kind: "new"}},
				Outcome: "failed", Error: "exit status 3", ExitCode: intp(3), Started: at(0), Began: at(0), Ended: at(1)}},
			{Addr: "exec.after", Kind: "exec", Deps: []int{0}, Executor: "local", Result: history.Result{Outcome: "skipped",
				Error: bad + " did not succeed", Ended: at(1)}},
		}}
	writeMetrics(t, r, 0, func(step int) []metrics.Value {
		return []metrics.Value{{Key: "<img src=x onerror=alert(2)>", Value: 1}, {Key: "``<img src=x onerror=alert(3)>``", Value: 2}}
	}, 1)
	var b bytes.Buffer
	if err := Markdown(&b, Options{Run: r}); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"| **`exec.t[\"<script>alert(1)</script>\"]`** | + create | failed (exit 3) | never built; exit status 3 |",
		"| `exec.after` |  | skipped | exec.t\\[\"\\<script\\>alert(1)\\</script\\>\"\\] did not succeed |",
		"### Metrics of `exec.t[\"<script>alert(1)</script>\"]` (1 steps)",
		"| `<img src=x onerror=alert(2)>` | 1 (step 1) |",
		"| ``` ``<img src=x onerror=alert(3)>`` ``` | 2 (step 1) |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q:\n%s", want, md)
		}
	}
}
