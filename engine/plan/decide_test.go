package plan_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/run"
	"github.com/kilnbuild/kiln/providers/exec"
)

// pipeline is a real pipeline folder that tests edit between plans.
type pipeline struct {
	t   *testing.T
	dir string
}

func newPipeline(t *testing.T, files map[string]string) *pipeline {
	p := &pipeline{t: t, dir: t.TempDir()}
	p.write(files)
	return p
}

func (p *pipeline) write(files map[string]string) {
	p.t.Helper()
	for name, content := range files {
		path := filepath.Join(p.dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			p.t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			p.t.Fatal(err)
		}
	}
}

func (p *pipeline) open() *engine.Workspace {
	p.t.Helper()
	w, diags, err := engine.Open(engine.Options{Path: p.dir, Kinds: []kind.Kind{exec.New()}})
	if err != nil || diags.HasErrors() {
		p.t.Fatalf("opening the pipeline: %v %s", err, diags.Error())
	}
	return w
}

// planned is a plan reduced to what a person reads: each node's symbol and
// reason messages, and the forgotten addresses.
type planned struct {
	Actions map[string]string
	Reasons map[string][]string
	Forget  []string
}

func (p *pipeline) plan() planned {
	p.t.Helper()
	pl, diags := p.open().Plan(context.Background())
	if diags.HasErrors() {
		p.t.Fatalf("plan: %s", diags.Error())
	}
	got := planned{Actions: map[string]string{}, Reasons: map[string][]string{}, Forget: pl.Forget}
	for _, d := range pl.Changes {
		a := d.Node.Addr.String()
		got.Actions[a] = string(d.Action)
		for _, r := range d.Reasons {
			got.Reasons[a] = append(got.Reasons[a], r.String())
		}
	}
	return got
}

func (p *pipeline) apply() map[string]run.Outcome {
	p.t.Helper()
	res, err := p.open().Apply(context.Background(), engine.ApplyOptions{Parallelism: 2})
	if err != nil {
		p.t.Fatalf("apply: %v", err)
	}
	out := map[string]run.Outcome{}
	for _, n := range res.Nodes {
		out[n.Addr.String()] = n.Outcome
		if n.Err != nil {
			p.t.Logf("%s: %v %q", n.Addr, n.Err, n.LogTail)
		}
	}
	return out
}

func (p *pipeline) expectActions(step string, want map[string]string) planned {
	p.t.Helper()
	got := p.plan()
	if diff := cmp.Diff(want, got.Actions); diff != "" {
		p.t.Fatalf("%s: actions (-want +got):\n%s\nreasons: %v", step, diff, got.Reasons)
	}
	return got
}

func (p *pipeline) expectOutcomes(step string, want map[string]run.Outcome) {
	p.t.Helper()
	if diff := cmp.Diff(want, p.apply()); diff != "" {
		p.t.Fatalf("%s: outcomes (-want +got):\n%s", step, diff)
	}
}

const threeNodes = `
exec "a" {
  inputs  = ["data.txt"]
  command = "cp data.txt $KILN_OUT/a"
}

exec "b" {
  command = "cat ${exec.a.out}/a > $KILN_OUT/b"
}

exec "c" {
  command = "echo c > $KILN_OUT/c"
}
`

// TestActions walks one pipeline through every action of the exec kind.
func TestActions(t *testing.T) {
	const noop = string(plan.NoOp)
	p := newPipeline(t, map[string]string{"pipeline.hcl": threeNodes, "data.txt": "v1\n"})

	got := p.expectActions("never built", map[string]string{"exec.a": "+", "exec.b": "+", "exec.c": "+"})
	if diff := cmp.Diff([]string{"never built"}, got.Reasons["exec.a"]); diff != "" {
		t.Errorf("reasons of a new node (-want +got):\n%s", diff)
	}
	p.expectOutcomes("first apply", map[string]run.Outcome{"exec.a": run.Built, "exec.b": run.Built, "exec.c": run.Built})
	p.expectActions("after apply", map[string]string{"exec.a": noop, "exec.b": noop, "exec.c": noop})

	p.write(map[string]string{"data.txt": "v2\n"})
	got = p.expectActions("input edited", map[string]string{"exec.a": "~", "exec.b": "?", "exec.c": noop})
	if r := got.Reasons["exec.a"]; len(r) != 1 || !strings.HasPrefix(r[0], "input data.txt changed: ") {
		t.Errorf("rebuild reasons = %q, want one naming data.txt", r)
	}
	if diff := cmp.Diff([]string{"upstream exec.a will run; decided once its digest is known"}, got.Reasons["exec.b"]); diff != "" {
		t.Errorf("maybe reasons (-want +got):\n%s", diff)
	}
	p.expectOutcomes("apply the edit", map[string]run.Outcome{"exec.a": run.Built, "exec.b": run.Built, "exec.c": run.UpToDate})
	p.expectActions("after the edit", map[string]string{"exec.a": noop, "exec.b": noop, "exec.c": noop})

	p.write(map[string]string{"data.txt": "v1\n"})
	got = p.expectActions("input reverted", map[string]string{"exec.a": "<", "exec.b": "<", "exec.c": noop})
	if r := got.Reasons["exec.a"]; len(r) < 2 || r[0] != "an earlier result with this key is in the store" || !strings.HasPrefix(r[1], "input data.txt changed") {
		t.Errorf("restore reasons = %q", r)
	}
	p.expectOutcomes("restore", map[string]run.Outcome{"exec.a": run.Restored, "exec.b": run.Restored, "exec.c": run.UpToDate})
	p.expectActions("after restore", map[string]string{"exec.a": noop, "exec.b": noop, "exec.c": noop})
	if b, err := os.ReadFile(filepath.Join(p.dir, ".kiln/out/exec.b/b")); err != nil || string(b) != "v1\n" {
		t.Fatalf("restored exec.b holds %q, %v; want v1", b, err)
	}

	if err := os.Remove(filepath.Join(p.dir, ".kiln/out/exec.a/a")); err != nil {
		t.Fatal(err)
	}
	got = p.expectActions("output deleted", map[string]string{"exec.a": "!", "exec.b": "?", "exec.c": noop})
	if r := got.Reasons["exec.a"]; len(r) != 1 || !strings.HasPrefix(r[0], "outputs changed outside kiln: ") {
		t.Errorf("repair reasons = %q", r)
	}
	// The repaired output is byte-identical: b stops there (early cutoff).
	p.expectOutcomes("repair", map[string]run.Outcome{"exec.a": run.Built, "exec.b": run.UpToDate, "exec.c": run.UpToDate})
	p.expectActions("after repair", map[string]string{"exec.a": noop, "exec.b": noop, "exec.c": noop})

	p.write(map[string]string{"pipeline.hcl": strings.Split(threeNodes, `exec "c"`)[0]})
	got = p.expectActions("block removed", map[string]string{"exec.a": noop, "exec.b": noop})
	if diff := cmp.Diff([]string{"exec.c"}, got.Forget); diff != "" {
		t.Errorf("forget (-want +got):\n%s", diff)
	}
	p.expectOutcomes("forget", map[string]run.Outcome{"exec.a": run.UpToDate, "exec.b": run.UpToDate})
	if got := p.plan(); len(got.Forget) != 0 {
		t.Errorf("exec.c still in state after apply: %v", got.Forget)
	}
}

// TestActionResume: a resumable node whose run failed after writing into
// $KILN_OUT is planned as a resume, and its next run finds what it wrote.
func TestActionResume(t *testing.T) {
	p := newPipeline(t, map[string]string{"pipeline.hcl": `
exec "train" {
  resumable = true
  command   = "if [ -f $KILN_OUT/checkpoint ]; then echo resumed > $KILN_OUT/done; else echo step1 > $KILN_OUT/checkpoint; exit 3; fi"
}
`})
	if got := p.apply(); got["exec.train"] != run.Failed {
		t.Fatalf("first run: %v, want failed", got)
	}
	pl, diags := p.open().Plan(context.Background())
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	d := pl.Changes[0]
	if !d.Action.Runs() || len(d.Reasons) == 0 || d.Reasons[0].Kind != "resume" {
		t.Fatalf("plan after the interrupted run: %c %+v, want a run whose first reason is resume", d.Action, d.Reasons)
	}
	var failed bool
	for _, r := range d.Reasons {
		failed = failed || r.Kind == "failed" && strings.Contains(r.Detail, "exit status 3")
	}
	if !failed {
		t.Errorf("reasons %+v do not say the last run failed with exit status 3", d.Reasons)
	}
	if got := p.apply(); got["exec.train"] != run.Built {
		t.Fatalf("resumed run: %v, want built", got)
	}
	for name, want := range map[string]string{"checkpoint": "step1\n", "done": "resumed\n"} {
		b, err := os.ReadFile(filepath.Join(p.dir, ".kiln/out/exec.train", name))
		if err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", name, b, err, want)
		}
	}
}

// TestQuickCheckSeesEnvReadInLocal: after a change of a variable read with
// env() in a local, the no-change shortcut must not report up to date.
func TestQuickCheckSeesEnvReadInLocal(t *testing.T) {
	const name = "KILN_DECIDETEST_MODE"
	t.Setenv(name, "fast")
	p := newPipeline(t, map[string]string{"pipeline.hcl": `
locals {
  mode = env("` + name + `")
}

exec "a" {
  command = "echo $MODE > $KILN_OUT/mode"
  env     = { MODE = local.mode }
}
`})
	p.apply()
	p.expectActions("built", map[string]string{"exec.a": string(plan.NoOp)})
	t.Setenv(name, "slow")
	p.expectActions("variable changed", map[string]string{"exec.a": "~"})
	if _, upToDate := engine.QuickCheck(engine.Options{Path: p.dir, Kinds: []kind.Kind{exec.New()}}); upToDate {
		t.Fatal("engine.QuickCheck says up to date after " + name + " changed, while the full plan rebuilds exec.a: the env() read in a local leaves no env line in the key, so the no-change certificate does not watch it")
	}
}

// TestQuickCheckSeesNewGlobMatch: a new file matching an input glob makes
// the full plan rebuild; the no-change shortcut must agree.
func TestQuickCheckSeesNewGlobMatch(t *testing.T) {
	p := newPipeline(t, map[string]string{
		"pipeline.hcl": "exec \"a\" {\n  inputs  = [\"data/*.txt\"]\n  command = \"cat data/*.txt > $KILN_OUT/all\"\n}\n",
		"data/1.txt":   "one\n",
	})
	p.apply()
	p.expectActions("built", map[string]string{"exec.a": string(plan.NoOp)})
	p.write(map[string]string{"data/2.txt": "two\n"})
	if _, upToDate := engine.QuickCheck(engine.Options{Path: p.dir, Kinds: []kind.Kind{exec.New()}}); upToDate {
		got := p.plan()
		t.Fatalf("engine.QuickCheck says up to date after data/2.txt was added, while the full plan says %v %v: the certificate re-checks the files an input glob matched, not the glob", got.Actions, got.Reasons)
	}
}

// TestActionsAfterMovingThePipeline: a built pipeline moved to another
// folder, .kiln included, is still up to date.
func TestActionsAfterMovingThePipeline(t *testing.T) {
	p := newPipeline(t, map[string]string{"pipeline.hcl": threeNodes + `
exec "d" {
  inputs  = ["data.txt"]
  command = "cat ${path.root}/data.txt ${exec.b.out}/b > ${self.out}/d"
  env     = { ROOT = path.root, STATE = exec.c.out }
}
`, "data.txt": "v1\n"})
	p.apply()
	moved := filepath.Join(t.TempDir(), "moved", "here")
	if err := os.MkdirAll(filepath.Dir(moved), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(p.dir, moved); err != nil {
		t.Fatal(err)
	}
	p.dir = moved
	const noop = string(plan.NoOp)
	p.expectActions("after the move", map[string]string{"exec.a": noop, "exec.b": noop, "exec.c": noop, "exec.d": noop})
}
