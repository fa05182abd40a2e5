package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine"
	"github.com/kilnbuild/kiln/engine/run"
	"github.com/kilnbuild/kiln/engine/state"
	"github.com/kilnbuild/kiln/providers"
	"github.com/kilnbuild/kiln/providers/host/hosttest"
)

// twoSteps is a pipeline of two exec nodes, the second reading the first,
// with an input file and a variable.
const twoSteps = `variable "word" {
  default = "kiln"
}

exec "first" {
  inputs  = ["in.txt"]
  command = "cat in.txt > $KILN_OUT/a.txt; echo ${var.word} >> $KILN_OUT/a.txt"
}

exec "second" {
  command = "cat ${exec.first.out}/a.txt > $KILN_OUT/b.txt"
}

output "b" {
  value = "${exec.second.out}/b.txt"
}
`

// pipeline writes files into a fresh folder and returns it.
func pipeline(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		write(t, filepath.Join(dir, name), body)
	}
	return dir
}

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// open opens dir as kiln does, failing the test on any diagnostic.
func open(t *testing.T, dir string, vars map[string]string) *engine.Workspace {
	t.Helper()
	w, diags, err := engine.Open(engine.Options{Path: dir, Kinds: providers.All(), Vars: vars})
	if err != nil || diags.HasErrors() {
		t.Fatalf("open %s: %v %s", dir, err, diags)
	}
	return w
}

// actions is each node's action in the plan, by address.
func actions(t *testing.T, w *engine.Workspace) map[string]string {
	t.Helper()
	pl, diags := w.Plan(context.Background())
	if diags.HasErrors() {
		t.Fatalf("plan: %s", diags)
	}
	out := map[string]string{}
	for _, d := range pl.Changes {
		out[d.Node.Addr.String()] = d.Action.Word()
	}
	return out
}

func apply(t *testing.T, w *engine.Workspace) *run.Result {
	t.Helper()
	res, err := w.Apply(context.Background(), engine.ApplyOptions{Parallelism: 2, Hooks: run.NoHooks{}})
	if err != nil || res.Failed() {
		t.Fatalf("apply: %v %+v", err, res)
	}
	return res
}

// A workspace plans, applies, and plans again with nothing to do; the
// state stamp moves with the apply, and a fresh Open sees what it wrote.
func TestWorkspacePlanApplyPlan(t *testing.T) {
	dir := pipeline(t, map[string]string{"pipeline.hcl": twoSteps, "in.txt": "hello\n"})
	w := open(t, dir, nil)
	if diff := cmp.Diff(map[string]string{"exec.first": "create", "exec.second": "create"}, actions(t, w)); diff != "" {
		t.Errorf("first plan (-want +got):\n%s", diff)
	}
	if got := w.Stamp(); got != (engine.StateStamp{}) {
		t.Errorf("Stamp before any apply = %+v, want zero", got)
	}
	if n := w.EdgeCount(); n != 1 {
		t.Errorf("EdgeCount = %d, want 1", n)
	}
	res := apply(t, w)
	if got := res.Count(run.Built); got != 2 {
		t.Errorf("apply built %d nodes, want 2", got)
	}
	if w.RunID() == 0 || w.RunRecordErr() != nil {
		t.Errorf("RunID = %d, RunRecordErr = %v after apply, want a record", w.RunID(), w.RunRecordErr())
	}
	stamp := w.Stamp()
	if stamp.Lineage == "" || stamp.Serial == 0 {
		t.Errorf("Stamp after apply = %+v, want a lineage and a serial", stamp)
	}
	again := open(t, dir, nil)
	if diff := cmp.Diff(map[string]string{"exec.first": "no-op", "exec.second": "no-op"}, actions(t, again)); diff != "" {
		t.Errorf("plan after apply (-want +got):\n%s", diff)
	}
	if got := again.Stamp(); got != stamp {
		t.Errorf("a fresh Open stamps %+v, the apply left %+v", got, stamp)
	}
	outs, diags := again.Outputs()
	if diags.HasErrors() || len(outs) != 1 || !strings.HasSuffix(outs[0].Val.AsString(), "b.txt") {
		t.Errorf("Outputs = %+v %s", outs, diags)
	}
}

// Open reports a broken pipeline as diagnostics at its file and line and
// writes nothing.
func TestWorkspaceOpenReportsConfigurationErrors(t *testing.T) {
	dir := pipeline(t, map[string]string{"pipeline.hcl": "exec \"a\" {\n  command = exec.missing.out\n}\n"})
	_, diags, err := engine.Open(engine.Options{Path: dir, Kinds: providers.All()})
	if err != nil {
		t.Fatalf("Open: %v, want diagnostics", err)
	}
	if !diags.HasErrors() {
		t.Fatal("Open of a pipeline naming a missing node: no error")
	}
	if d := diags[0]; d.Subject == nil || !strings.HasSuffix(d.Subject.Filename, "pipeline.hcl") || d.Subject.Start.Line != 2 {
		t.Errorf("diagnostic %q at %v, want pipeline.hcl line 2", d.Summary, d.Subject)
	}
	if _, err := os.Stat(filepath.Join(dir, ".kiln")); !os.IsNotExist(err) {
		t.Errorf("Open of a broken pipeline made .kiln (%v)", err)
	}
}

// NodeByAddr finds a node; a mistyped address is answered with the closest
// one, an unrelated one with where the addresses are listed.
func TestWorkspaceNodeByAddr(t *testing.T) {
	w := open(t, pipeline(t, map[string]string{"pipeline.hcl": twoSteps, "in.txt": "x\n"}), nil)
	n, err := w.NodeByAddr("exec.second")
	if err != nil || n.Addr.String() != "exec.second" {
		t.Fatalf("NodeByAddr(exec.second) = %v, %v", n, err)
	}
	for _, tc := range []struct{ addr, want string }{
		{"exec.secnod", "did you mean exec.second?"},
		{"exec.nothing_like_it", "kiln state list and kiln graph show the addresses"},
		{"not an address", "not an address"},
	} {
		if _, err := w.NodeByAddr(tc.addr); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NodeByAddr(%q) = %v, want an error saying %q", tc.addr, err, tc.want)
		}
	}
}

// ConfigDigest changes with the pipeline's files and the variables given,
// and nothing else (not the input files: the keys see those).
func TestWorkspaceConfigDigest(t *testing.T) {
	dir := pipeline(t, map[string]string{"pipeline.hcl": twoSteps, "in.txt": "x\n"})
	base := open(t, dir, nil).ConfigDigest()
	if again := open(t, dir, nil).ConfigDigest(); again != base {
		t.Errorf("two opens of the same pipeline: %s and %s", base, again)
	}
	w := open(t, dir, map[string]string{"word": "other"})
	if w.ConfigDigest() == base {
		t.Error("a variable given on the command line left the digest as it was")
	}
	if diff := cmp.Diff([]string{"word=other"}, w.VarFlags()); diff != "" {
		t.Errorf("VarFlags (-want +got):\n%s", diff)
	}
	write(t, filepath.Join(dir, "in.txt"), "y\n")
	if got := open(t, dir, nil).ConfigDigest(); got != base {
		t.Error("an input file changed the configuration digest")
	}
	write(t, filepath.Join(dir, "pipeline.hcl"), twoSteps+"\n# a comment\n")
	if got := open(t, dir, nil).ConfigDigest(); got == base {
		t.Error("an edit of the pipeline file left the digest as it was")
	}
}

// A saved plan applies while nothing moved, and goes stale, saying why,
// when an input changes a planned key, a result changes outside kiln
// (what a node is to do changes) or the pipeline is edited.
func TestWorkspaceSavedPlanGoesStale(t *testing.T) {
	dir := pipeline(t, map[string]string{"pipeline.hcl": twoSteps, "in.txt": "x\n"})
	file := filepath.Join(t.TempDir(), "plan.json")
	w := open(t, dir, nil)
	apply(t, w)
	write(t, filepath.Join(dir, "in.txt"), "y\n")
	sp := savePlan(t, open(t, dir, nil), file)
	if !engine.IsPlanFile(file) || engine.IsPlanFile(filepath.Join(dir, "pipeline.hcl")) {
		t.Fatal("IsPlanFile does not tell the plan from the pipeline")
	}
	if err := open(t, dir, nil).CheckSavedPlan(context.Background(), sp); err != nil {
		t.Fatalf("nothing moved, yet: %v", err)
	}
	write(t, filepath.Join(dir, "in.txt"), "z\n")
	err := open(t, dir, nil).CheckSavedPlan(context.Background(), sp)
	if !errors.Is(err, engine.ErrStalePlan) || !strings.Contains(err.Error(), "exec.first (its key) changed since the plan was saved") {
		t.Errorf("after an input edit: %v, want a stale plan naming exec.first's key", err)
	}

	// Everything up to date, a plan of no-ops saved; then a result is
	// edited outside kiln, so applying would repair what the plan left.
	apply(t, open(t, dir, nil))
	sp = savePlan(t, open(t, dir, nil), file)
	if err := os.WriteFile(filepath.Join(dir, ".kiln", "out", "exec.second", "b.txt"), []byte("edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = open(t, dir, nil).CheckSavedPlan(context.Background(), sp)
	if !errors.Is(err, engine.ErrStalePlan) || !strings.Contains(err.Error(), "exec.second (repair, the saved plan said no-op)") {
		t.Errorf("after a result was edited: %v, want a stale plan naming exec.second's repair", err)
	}

	write(t, filepath.Join(dir, "pipeline.hcl"), twoSteps+"\n# edited\n")
	err = open(t, dir, nil).CheckSavedPlan(context.Background(), sp)
	if !errors.Is(err, engine.ErrStalePlan) || !strings.Contains(err.Error(), "files or variables changed") {
		t.Errorf("after a pipeline edit: %v, want a stale plan", err)
	}
}

// A plan file an earlier kiln wrote is recognised as a plan, not loaded
// as a pipeline, and refused with the command that makes it again.
func TestWorkspaceRefusesAnEarlierPlanFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "old.json")
	write(t, file, `{"format": "kiln-plan-1", "pipeline": "/p", "plan": {"changes": []}}`+"\n")
	if !engine.IsPlanFile(file) {
		t.Fatal("an earlier kiln's plan file is not recognised as a plan")
	}
	_, err := engine.LoadPlan(file)
	if err == nil || !strings.Contains(err.Error(), "earlier kiln") || !strings.Contains(err.Error(), "kiln plan -out "+file) {
		t.Errorf("LoadPlan: %v, want a refusal saying to make it again", err)
	}
}

// savePlan saves w's plan to file and loads it back.
func savePlan(t *testing.T, w *engine.Workspace, file string) *engine.SavedPlan {
	t.Helper()
	pl, diags := w.Plan(context.Background())
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if err := w.SavePlan(file, engine.PlanFlags{}, pl, map[string]any{"changes": []any{}}); err != nil {
		t.Fatal(err)
	}
	sp, err := engine.LoadPlan(file)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// Apply refuses to run while another holds the state folder's lock, and
// says who holds it.
func TestWorkspaceApplyRefusesAHeldLock(t *testing.T) {
	dir := pipeline(t, map[string]string{"pipeline.hcl": twoSteps, "in.txt": "x\n"})
	lock, err := state.AcquireLock(filepath.Join(dir, ".kiln"), state.Holder{PID: 4242, Host: "elsewhere", Command: "kiln apply"})
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	_, err = open(t, dir, nil).Apply(context.Background(), engine.ApplyOptions{Parallelism: 1, Hooks: run.NoHooks{}})
	var locked *state.LockedError
	if !errors.As(err, &locked) || locked.Holder.PID != 4242 {
		t.Fatalf("Apply under another's lock: %v, want a LockedError naming pid 4242", err)
	}
}

// Pools counts this machine's CPUs and adds the devices a host node's probe
// finds (kind.DeviceReporter): here the four NPUs a stand-in npu-smi lists,
// with their ids.
func TestWorkspacePoolsAddAHostsNPUs(t *testing.T) {
	dir := pipeline(t, map[string]string{
		"npu-smi":      hosttest.NPUSmi(4, nil),
		"pipeline.hcl": "host \"a2\" {\n  npu_smi = \"./npu-smi\"\n}\n",
	})
	if err := os.Chmod(filepath.Join(dir, "npu-smi"), 0o755); err != nil {
		t.Fatal(err)
	}
	got := open(t, dir, nil).Pools(context.Background())
	if got["npu"] == nil || got["npu"].Devices.String() != "0-3" || got["cpu"] == nil || got["cpu"].Size < 1 {
		t.Errorf("Pools = %v, want npu 0-3 and at least one cpu", got.Capacity())
	}
	without := open(t, pipeline(t, map[string]string{"pipeline.hcl": twoSteps}), nil).Pools(context.Background())
	if _, ok := without["npu"]; ok {
		t.Errorf("Pools without a host node = %v, want no npu pool", without.Capacity())
	}
}
