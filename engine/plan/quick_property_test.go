package plan_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/render"
	"github.com/kilnbuild/kiln/providers/exec"
)

// TestQuickCheckAgreesWithPlan is a property: after random edits of a
// pipeline's world — input files, files matched by a glob, a patch, the
// file an input symlink leads to, a file in a folder an input symlink
// leads to, the symlink pointed elsewhere, a file
// read with file(), a file whose existence sets a count, a variable, a
// variable read with env(), the lock file — the no-change certificate says
// "up to date" only when the full plan does, and the plan made from it and
// the key lines kept beside it (engine.QuickPlan), when it makes one, is the
// full plan, node for node, reason for reason.
func TestQuickCheckAgreesWithPlan(t *testing.T) { quickAgreesWithPlan(t, 60, false) }

// TestQuickCheckAgreesWithPlanSettled is the same property once the
// certificate has settled after each apply — the links folder's stamp and
// every node's seals recorded, as they are after the first check that
// comes more than the racy window after an apply — so that the edits are
// checked against stamps rather than by reading links and hashing. Every
// other step also edits a result in its run folder, which only a file's
// own stamp shows.
func TestQuickCheckAgreesWithPlanSettled(t *testing.T) { quickAgreesWithPlan(t, 10, true) }

func quickAgreesWithPlan(t *testing.T, steps int, settle bool) {
	dir := t.TempDir()
	env := "KILN_PROPERTY_MODE"
	t.Setenv(env, "fast")
	files := map[string]string{
		"pipeline.hcl": `variable "v" {
  type    = string
  default = "1"
}

locals {
  mode   = env("` + env + `")
  params = file("params.txt")
  n      = fileexists("shards.txt") ? length(compact(split("\n", file("shards.txt")))) : 1
}

exec "a" {
  command = "cat data/a.txt patches/fix.patch > $KILN_OUT/a; echo ${var.v} ${local.mode} >> $KILN_OUT/a"
  inputs  = ["data/a.txt", "patches/fix.patch"]
}

exec "glob" {
  command = "cat data/g/*.txt > $KILN_OUT/g"
  inputs  = ["data/g/*.txt"]
}

exec "w" {
  count   = local.n
  command = "echo ${count.index} ${local.params} > $KILN_OUT/w"
}

exec "b" {
  command = "cat ${exec.a.out}/a ${exec.glob.out}/g > $KILN_OUT/b"
}

exec "c" {
  command    = "cat data/c.txt > $KILN_OUT/c"
  inputs     = ["data/c.txt"]
  depends_on = [exec.a, exec.glob, exec.b]
}

exec "d" {
  command = "echo ${exec.a.digest} > $KILN_OUT/d"
}

exec "l" {
  command = "cat data/l.txt data/ls/x.txt > $KILN_OUT/l"
  inputs  = ["data/l.txt", "data/ls"]
}
`,
		"data/a.txt":        "a\n",
		"data/c.txt":        "c\n",
		"data/g/1.txt":      "1\n",
		"patches/fix.patch": "--- a\n+++ b\n",
		"params.txt":        "lr=0.1\n",
		"kiln.lock.hcl":     "version = 1\n",
	}
	for name, content := range files {
		write(t, dir, name, content)
	}
	// Inputs that are symlinks to a file and a folder outside the pipeline.
	ext := t.TempDir()
	write(t, ext, "t1.txt", "t1 0\n")
	write(t, ext, "t2.txt", "t2 0\n")
	write(t, ext, "set/x.txt", "x 0\n")
	pointLink := func(name, target string) {
		p := filepath.Join(dir, name)
		_ = os.Remove(p)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	pointLink("data/l.txt", filepath.Join(ext, "t1.txt"))
	pointLink("data/ls", filepath.Join(ext, "set"))
	vars := map[string]string{}
	opts := func() engine.Options {
		return engine.Options{Path: dir, Kinds: []kind.Kind{exec.New()}, Vars: vars}
	}
	// A result edited in its run folder keeping its size and mtime.
	editResult := func(*rand.Rand) {
		run, err := filepath.EvalSymlinks(filepath.Join(dir, ".kiln", "out", "exec.a"))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(run, "a")
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(p)
		if err != nil || len(b) == 0 {
			t.Fatalf("reading %s: %v", p, err)
		}
		b[0] ^= 1
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, info.ModTime(), info.ModTime()); err != nil {
			t.Fatal(err)
		}
	}
	edits := []struct {
		name string
		do   func(r *rand.Rand)
	}{
		{"input content", func(r *rand.Rand) { write(t, dir, "data/a.txt", fmt.Sprintf("a %d\n", r.IntN(3))) }},
		{"input of a node with unnamed upstreams", func(r *rand.Rand) { write(t, dir, "data/c.txt", fmt.Sprintf("c %d\n", r.IntN(3))) }},
		{"input rewritten as it was", func(*rand.Rand) { rewrite(t, dir, "data/a.txt") }},
		{"new glob match", func(r *rand.Rand) { write(t, dir, fmt.Sprintf("data/g/n%d.txt", r.IntN(4)), "n\n") }},
		{"glob match removed", func(r *rand.Rand) { _ = os.Remove(filepath.Join(dir, fmt.Sprintf("data/g/n%d.txt", r.IntN(4)))) }},
		{"file beside the glob", func(r *rand.Rand) { write(t, dir, "data/g/skip.csv", fmt.Sprint(r.IntN(3))) }},
		{"patch", func(r *rand.Rand) { write(t, dir, "patches/fix.patch", fmt.Sprintf("--- a\n+++ b %d\n", r.IntN(3))) }},
		{"file() read", func(r *rand.Rand) { write(t, dir, "params.txt", fmt.Sprintf("lr=0.%d\n", r.IntN(3))) }},
		{"fileexists count", func(r *rand.Rand) {
			if r.IntN(2) == 0 {
				_ = os.Remove(filepath.Join(dir, "shards.txt"))
				return
			}
			write(t, dir, "shards.txt", "x\ny\n"[:2*(1+r.IntN(2))])
		}},
		{"variable", func(r *rand.Rand) { vars["v"] = fmt.Sprint(r.IntN(3)) }},
		{"env()", func(r *rand.Rand) { t.Setenv(env, []string{"fast", "slow", "fast"}[r.IntN(3)]) }},
		{"result in its run folder, same size and mtime", editResult},
		{"file an input link leads to, same size and mtime", func(r *rand.Rand) {
			keepingTimes(t, filepath.Join(ext, "t1.txt"), func() { write(t, ext, "t1.txt", fmt.Sprintf("t1 %d\n", r.IntN(3))) })
		}},
		{"file in a folder an input link leads to", func(r *rand.Rand) { write(t, ext, "set/x.txt", fmt.Sprintf("x %d\n", r.IntN(3))) }},
		{"input link pointed elsewhere", func(r *rand.Rand) {
			pointLink("data/l.txt", filepath.Join(ext, []string{"t1.txt", "t2.txt"}[r.IntN(2)]))
		}},
		{"lock pins", func(r *rand.Rand) {
			write(t, dir, "kiln.lock.hcl", fmt.Sprintf("version = 1\n\npin \"exec.a\" {\n  checksum = \"sha256:%064d\"\n}\n", r.IntN(2)))
		}},
	}
	r := rand.New(rand.NewPCG(8, 8))
	agreedUpToDate, agreedChanged, quickPlans := 0, 0, 0
	for i := range steps {
		w, diags, err := engine.Open(opts())
		if err != nil || diags.HasErrors() {
			t.Fatalf("step %d: open: %v %s", i, err, diags.Error())
		}
		if res, err := w.Apply(context.Background(), engine.ApplyOptions{Parallelism: 2}); err != nil || res.Failed() {
			t.Fatalf("step %d: apply: %v", i, err)
		}
		var done []string
		if settle {
			time.Sleep(2100 * time.Millisecond)
			if _, ok := engine.QuickCheck(opts()); !ok {
				t.Fatalf("step %d: QuickCheck: not up to date right after the apply", i)
			}
			if i%2 == 0 {
				editResult(r)
				done = append(done, "result in its run folder")
			}
		}
		for range 1 + r.IntN(2) {
			e := edits[r.IntN(len(edits))]
			e.do(r)
			done = append(done, e.name)
		}
		_, quick := engine.QuickCheck(opts())
		qp, madeQuick := engine.QuickPlan(context.Background(), opts())
		w, diags, err = engine.Open(opts())
		if err != nil || diags.HasErrors() {
			t.Fatalf("step %d: open: %v %s", i, err, diags.Error())
		}
		pl, diags := w.Plan(context.Background())
		if diags.HasErrors() {
			t.Fatalf("step %d: plan: %s", i, diags.Error())
		}
		if madeQuick {
			quickPlans++
			lineage, serial := w.StateVersion()
			want := render.ModelPlan(pl, w.Root(), render.StateJSON{Lineage: lineage, Serial: serial}, "test")
			got := render.ModelPlan(qp.Plan, qp.Root, render.StateJSON{Lineage: qp.Stamp.Lineage, Serial: qp.Stamp.Serial}, "test")
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("step %d, after %v: the quick plan differs from the full plan (-full +quick):\n%s", i, done, diff)
			}
		}
		full := !pl.HasChanges()
		if quick && !full {
			var counts []string
			for a, n := range pl.Counts() {
				counts = append(counts, fmt.Sprintf("%s=%d", a.Word(), n))
			}
			sort.Strings(counts)
			t.Fatalf("step %d, after %v: the certificate says up to date, the full plan says %v", i, done, counts)
		}
		switch {
		case quick && full:
			agreedUpToDate++
		case !quick && !full:
			agreedChanged++
		}
	}
	// The property must have been tested both ways.
	t.Logf("up to date: %d, changed: %d, quick plans: %d", agreedUpToDate, agreedChanged, quickPlans)
	if agreedUpToDate == 0 || agreedChanged == 0 || quickPlans == 0 {
		t.Fatalf("up to date by both: %d steps, changed by both: %d, quick plans: %d; the edits do not exercise the certificate", agreedUpToDate, agreedChanged, quickPlans)
	}
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// keepingTimes runs edit, which writes path, and sets path's mtime back to
// what it was: only its change time tells.
func keepingTimes(t *testing.T, path string, edit func()) {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	edit()
	if err := os.Chtimes(path, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
}

// rewrite writes a file again with the same bytes: a new mtime, no change.
func rewrite(t *testing.T, dir, name string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, name, string(b))
}
