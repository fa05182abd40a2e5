package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine"
	"github.com/kilnbuild/kiln/engine/render"
	"github.com/kilnbuild/kiln/providers"
)

// TestPlanOnceIsPlan: PlanOnce, which lets go of the syntax and the
// evaluated configuration as it decides, makes the plan Plan makes, on a
// built pipeline after an edit; on an up-to-date one it still writes the
// memo the next plan answers from; and it still reports an invalid
// in-place output with the line of its block.
func TestPlanOnceIsPlan(t *testing.T) {
	ctx := context.Background()
	dir := pipeline(t, map[string]string{"pipeline.hcl": twoSteps + `
exec "third" {
  for_each = toset(["x", "y"])
  command  = "cat ${exec.first.out}/a.txt > $KILN_OUT/${each.key}"
}
`, "in.txt": "hello\n"})
	apply(t, open(t, dir, nil))
	model := func(once bool) *render.PlanJSON {
		w := open(t, dir, nil)
		plan := w.Plan
		if once {
			plan = w.PlanOnce
		}
		pl, diags := plan(ctx)
		if diags.HasErrors() {
			t.Fatalf("plan: %s", diags)
		}
		lineage, serial := w.StateVersion()
		return render.ModelPlan(pl, w.Root(), render.StateJSON{Lineage: lineage, Serial: serial}, "test")
	}

	memoFile := filepath.Join(dir, ".kiln", "cache", "memo")
	if err := os.Remove(memoFile); err != nil {
		t.Fatal(err)
	}
	if m := model(true); m.HasChanges() {
		t.Fatalf("the built pipeline has changes: %+v", m)
	}
	o := engine.Options{Path: dir, Kinds: providers.All()}
	if n, upToDate := engine.QuickCheck(o); !upToDate || n != 4 {
		t.Errorf("after PlanOnce found nothing to do: the memo says %d nodes, up to date %v; want 4 up to date", n, upToDate)
	}

	write(t, filepath.Join(dir, "in.txt"), "edited\n")
	if diff := cmp.Diff(model(false), model(true)); diff != "" {
		t.Errorf("PlanOnce's plan after an edit differs from Plan's (-Plan +PlanOnce):\n%s", diff)
	}

	write(t, filepath.Join(dir, "pipeline.hcl"), `exec "out" {
  outputs = ["../elsewhere.txt"]
  command = "echo x > ../elsewhere.txt"
}
`)
	pl, diags := open(t, dir, nil).PlanOnce(ctx)
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "Invalid output") || diags[0].Subject == nil || diags[0].Subject.Start.Line != 2 {
		t.Errorf("PlanOnce of an output outside the pipeline folder: %d decisions, %s; want Invalid output at line 2", len(pl.Changes), diags)
	}
}
