package plan_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/render"
	"github.com/kilnbuild/kiln/providers/exec"
)

// TestPlanInWavesAgreesWithOneByOne: a plan decides the nodes of a wave in
// parallel, and must decide exactly as when the nodes are decided one by
// one in order (as they are while keys are printed for KILN_DEBUG_KEY):
// each node sees the digests of the upstream nodes that will not run, and
// the unknown digest of those that will, whatever wave they are in.
func TestPlanInWavesAgreesWithOneByOne(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4)) // waves in parallel even on one core
	dir := t.TempDir()
	const n = 12
	var hcl strings.Builder
	fmt.Fprintf(&hcl, `exec "a" {
  count   = %d
  inputs  = ["data/a${count.index}.txt"]
  command = "cat data/a${count.index}.txt > $KILN_OUT/a"
}

exec "b" {
  count   = %d
  command = "echo ${exec.a[count.index].digest} > $KILN_OUT/b; cat ${exec.a[(count.index + 1) %% %d].out}/a >> $KILN_OUT/b"
}

exec "c" {
  count   = %d
  command = "echo ${exec.b[count.index].digest} ${length(exec.a)} > $KILN_OUT/c"
}

exec "all" {
  command = "cat ${join(" ", [for b in exec.b : "${b.out}/b"])} > $KILN_OUT/all"
}
`, n, n, n, n)
	write(t, dir, "pipeline.hcl", hcl.String())
	for i := range n {
		write(t, dir, fmt.Sprintf("data/a%d.txt", i), fmt.Sprint(i))
	}
	opts := engine.Options{Path: dir, Kinds: []kind.Kind{exec.New()}}
	w, diags, err := engine.Open(opts)
	if err != nil || diags.HasErrors() {
		t.Fatalf("open: %v %s", err, diags.Error())
	}
	if res, err := w.Apply(context.Background(), engine.ApplyOptions{Parallelism: 2}); err != nil || res.Failed() {
		t.Fatalf("apply: %v", err)
	}
	// Some nodes of each wave will run, some will not.
	for _, i := range []int{2, 5, 11} {
		write(t, dir, fmt.Sprintf("data/a%d.txt", i), fmt.Sprintf("%d changed", i))
	}
	plan := func(o engine.Options) (*render.PlanJSON, string) {
		w, diags, err := engine.Open(o)
		if err != nil || diags.HasErrors() {
			t.Fatalf("open: %v %s", err, diags.Error())
		}
		pl, diags := w.Plan(context.Background())
		if diags.HasErrors() {
			t.Fatalf("plan: %s", diags.Error())
		}
		lineage, serial := w.StateVersion()
		model := render.ModelPlan(pl, w.Root(), render.StateJSON{Lineage: lineage, Serial: serial}, "test")
		var text strings.Builder
		render.PlanText(&text, model, render.Colors{})
		return model, text.String()
	}
	inWaves, inWavesText := plan(opts)
	var keys []string
	one := opts
	one.DebugKey = func(a addr.Node, key string, _ []string) { keys = append(keys, a.String()) }
	oneByOne, oneByOneText := plan(one)
	if len(keys) == 0 {
		t.Fatal("no key was computed one by one")
	}
	if diff := cmp.Diff(oneByOneText, inWavesText); diff != "" {
		t.Errorf("the plan decided in waves differs from the one decided one by one (-one by one +waves):\n%s", diff)
	}
	if diff := cmp.Diff(oneByOne, inWaves); diff != "" {
		t.Errorf("the plan's model decided in waves differs (-one by one +waves):\n%s", diff)
	}
	for _, want := range []string{"exec.b[2]", "exec.c[5]", "exec.all"} {
		if !strings.Contains(inWavesText, want) {
			t.Errorf("the plan does not list %s:\n%s", want, inWavesText)
		}
	}
}
