package run_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/run"
)

// TestApplySameKeyBuildsOnce: two nodes with identical configurations have
// one key; the second restores the first's result instead of running.
func TestApplySameKeyBuildsOnce(t *testing.T) {
	dir := t.TempDir()
	node := `  command = "echo run >> ${path.root}/runs; echo same > $KILN_OUT/out"` + "\n"
	writeFiles(t, dir, map[string]string{"pipeline.hcl": "exec \"one\" {\n" + node + "}\n\nexec \"two\" {\n" + node + "}\n"})
	res := apply(t, context.Background(), dir, run.Options{Parallelism: 2})
	got := []run.Outcome{result(t, res, "exec.one").Outcome, result(t, res, "exec.two").Outcome}
	sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
	if diff := cmp.Diff([]run.Outcome{run.Built, run.Restored}, got); diff != "" {
		t.Fatalf("outcomes (-want +got):\n%s", diff)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "runs")); err != nil || string(b) != "run\n" {
		t.Errorf("runs = %q, %v; want one run", b, err)
	}
	for _, a := range []string{"exec.one", "exec.two"} {
		if b, err := os.ReadFile(filepath.Join(dir, ".kiln/out", a, "out")); err != nil || string(b) != "same\n" {
			t.Errorf("%s output = %q, %v", a, b, err)
		}
	}
}

func TestApplyOutputsMustStayInside(t *testing.T) {
	base := t.TempDir()
	outside := filepath.Join(base, "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	unsealed := "  sandbox = false\n  sandbox_reason = \"writes through a link\"\n"
	tests := []struct {
		name, command, outputs, want string
		extra                        string
	}{
		{"dot dot", "echo x > ../escape.txt", `["../escape.txt"]`, "outside the pipeline folder", ""},
		{"absolute", "echo x > " + outside + "/abs.txt", `["` + outside + `/abs.txt"]`, "outside the pipeline folder", ""},
		// Sealed, the write through the link is refused as it is made.
		{"symlink", "ln -sfn " + outside + " link && echo x > link/f", `["link/f"]`, "wrote " + outside + "/f, outside its result", ""},
		{"symlink unsealed", "ln -sfn " + outside + " link && echo x > link/f", `["link/f"]`, "through a symlink", unsealed},
		{"symlinked folder", "ln -sfn " + outside + " link2", `["link2"]`, "through a symlink", ""},
		{"state folder", "echo x > .kiln/x", `[".kiln/x"]`, "outside the pipeline folder", ""},
		{"missing", "true", `["never-made"]`, "was not created by the command", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(base, strings.ReplaceAll(tt.name, " ", "-"), "pipeline")
			writeFiles(t, dir, map[string]string{"pipeline.hcl": fmt.Sprintf("exec \"a\" {\n  command = %q\n  outputs = %s\n%s}\n", tt.command, tt.outputs, tt.extra)})
			r := result(t, apply(t, context.Background(), dir, run.Options{}), "exec.a")
			if r.Outcome != run.Failed || r.Err == nil || !strings.Contains(r.Err.Error(), tt.want) {
				t.Fatalf("outcome %s, error %v; want failed with %q", r.Outcome, r.Err, tt.want)
			}
			if _, err := os.Lstat(filepath.Join(dir, ".kiln/out/exec.a")); err == nil {
				t.Error("the failed node's stable path exists")
			}
		})
	}
}

func TestApplyInPlaceOutputs(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"pipeline.hcl": `
exec "a" {
  command = "mkdir -p build && echo v1 > build/lib.so"
  outputs = ["build"]
}
`})
	if r := result(t, apply(t, context.Background(), dir, run.Options{}), "exec.a"); r.Outcome != run.Built {
		t.Fatalf("outcome %s: %v", r.Outcome, r.Err)
	}
	if got := open(t, dir).plan(t)["exec.a"]; got != plan.NoOp {
		t.Fatalf("planned %c after the build", got)
	}
	writeFiles(t, dir, map[string]string{"build/lib.so": "tampered\n"})
	if got := open(t, dir).plan(t)["exec.a"]; got != plan.Repair {
		t.Fatalf("planned %c after an in-place output changed, want repair", got)
	}
}

// TestApplySameKeyRepairOnce: two nodes sharing one store entry both see
// drift in it; the repair runs the command once and both end up on the
// repaired result.
func TestApplySameKeyRepairOnce(t *testing.T) {
	dir := t.TempDir()
	node := `  command = "echo run >> ${path.root}/runs; echo same > $KILN_OUT/out"` + "\n"
	writeFiles(t, dir, map[string]string{"pipeline.hcl": "exec \"one\" {\n" + node + "}\n\nexec \"two\" {\n" + node + "}\n"})
	apply(t, context.Background(), dir, run.Options{Parallelism: 2})
	if err := os.Remove(filepath.Join(dir, ".kiln/out/exec.one/out")); err != nil {
		t.Fatal(err)
	}
	want := map[string]plan.Action{"exec.one": plan.Repair, "exec.two": plan.Repair}
	if diff := cmp.Diff(want, open(t, dir).plan(t)); diff != "" {
		t.Fatalf("plan (-want +got):\n%s", diff)
	}
	apply(t, context.Background(), dir, run.Options{Parallelism: 2})
	for _, a := range []string{"exec.one", "exec.two"} {
		if b, err := os.ReadFile(filepath.Join(dir, ".kiln/out", a, "out")); err != nil || string(b) != "same\n" {
			t.Errorf("%s output after repair = %q, %v", a, b, err)
		}
	}
	if got := open(t, dir).plan(t); !cmp.Equal(map[string]plan.Action{"exec.one": plan.NoOp, "exec.two": plan.NoOp}, got) {
		t.Errorf("plan after repair: %v", got)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "runs")); string(b) != "run\nrun\n" {
		t.Fatalf("repairing a store entry shared by two nodes ran the command %d times in all; want 2 (one build, one repair): the second node's Repair, decided before it took the key lock, removes and rebuilds the entry the first just repaired", strings.Count(string(b), "run"))
	}
}
