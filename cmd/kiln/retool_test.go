package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// retoolUpdate says whether -update was given. Other golden tests of this
// package define the same flag; whichever file initialises first defines it
// and the others look it up, so the flag is never defined twice.
var retoolUpdate = retoolSharedBoolFlag("update", "rewrite the golden files under testdata")

func retoolSharedBoolFlag(name, usage string) func() bool {
	if f := flag.Lookup(name); f != nil {
		return func() bool { return f.Value.String() == "true" }
	}
	b := flag.Bool(name, false, usage)
	return func() bool { return *b }
}

// kilnRun runs one kiln command in-process, as main does, and returns its
// output and exit code.
func kilnRun(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	c := &cli{stdout: &out, stderr: &errOut, getenv: os.Getenv, isTTY: false}
	code = c.main(args)
	return out.String(), errOut.String(), code
}

// planModel is the part of kiln plan -json these tests read.
type planModel struct {
	Summary map[string]int `json:"summary"`
	Changes []struct {
		Address   string   `json:"address"`
		Action    string   `json:"action"`
		DependsOn []string `json:"depends_on"`
	} `json:"changes"`
	Blocked []struct {
		Address string `json:"address"`
		Reason  string `json:"reason"`
	} `json:"blocked"`
}

func planJSON(t *testing.T, args ...string) planModel {
	t.Helper()
	stdout, stderr, code := kilnRun(t, append([]string{"plan", "-json"}, args...)...)
	if code != 0 {
		t.Fatalf("kiln plan -json %s: exit %d\nstderr:\n%s", strings.Join(args, " "), code, stderr)
	}
	var m planModel
	if err := json.Unmarshal([]byte(stdout), &m); err != nil {
		t.Fatalf("kiln plan -json printed no plan: %v\n%s", err, stdout)
	}
	return m
}

// graphLines are the plan's nodes with their sorted dependencies, one
// "address -> deps" line per node, sorted by address.
func graphLines(m planModel) string {
	var lines []string
	for _, c := range m.Changes {
		deps := append([]string(nil), c.DependsOn...)
		sort.Strings(deps)
		lines = append(lines, strings.TrimSpace(c.Address+" -> "+strings.Join(deps, " ")))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n") + "\n"
}

// copyTree copies a folder, keeping file modes and leaving out state.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() && (d.Name() == ".kiln" || d.Name() == "__pycache__") {
			return filepath.SkipDir
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(target, info.Mode().Perm()|0o700)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, info.Mode().Perm())
	})
	if err != nil {
		t.Fatalf("copying %s: %v", src, err)
	}
}

// TestRetoolPipelinePlansWithoutNPUs checks that retool.hcl is valid and
// plans on a machine without NPUs, CANN or network: every node is listed,
// the Ascend steps are blocked with reasons naming what is missing, and the
// graph matches testdata/retool/plan-graph.golden (-update rewrites it).
func TestRetoolPipelinePlansWithoutNPUs(t *testing.T) {
	if _, err := os.Stat("/usr/local/Ascend/ascend-toolkit"); err == nil {
		t.Skip("this machine has CANN installed; the test checks the plan of a machine without it")
	}
	dir := t.TempDir()
	b, err := os.ReadFile("../../retool.hcl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "retool.hcl"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	copyTree(t, "../../patches", filepath.Join(dir, "patches"))
	pipeline := filepath.Join(dir, "retool.hcl")
	// No npu-smi anywhere: the host must report 0 NPUs whatever this
	// machine's PATH holds; and an interpreter and a library that no
	// machine has, so that the plan names them whatever this one has.
	noNPU := []string{
		"-var", "npu_smi=" + filepath.Join(dir, "no-npu-smi"),
		"-var", "python=python-kiln-missing3.10",
		"-var", "sandbox_python=python-kiln-missing3.11",
		"-var", "sandbox_runtime_python=python-kiln-missing3.10",
		"-var", "jemalloc=" + filepath.Join(dir, "no-libjemalloc.so.2"),
	}

	// The programs the builds run, as stand-ins: the plan only looks them
	// up, so it reads the same on every machine.
	tools := stubPrograms(t, "git", "patch", "gcc", "g++", "make", "bash")
	t.Setenv("PATH", tools)

	if stdout, stderr, code := kilnRun(t, append([]string{"validate"}, append(noNPU, pipeline)...)...); code != 0 {
		t.Fatalf("kiln validate retool.hcl: exit %d\n%s%s", code, stdout, stderr)
	}
	checkRetoolCANNVersions(t, pipeline, noNPU)

	// Under Slurm the training job runs on a compute node: a sandbox left on
	// this host's loopback is refused at validate, with the way out.
	slurm := append([]string{"validate", "-var", "train_executor=slurm"}, noNPU...)
	if _, stderr, code := kilnRun(t, append(slurm, pipeline)...); code == 0 || !strings.Contains(stderr, "set -var sandbox_host=ADDRESS") {
		t.Errorf("kiln validate -var train_executor=slurm with the sandbox on loopback: exit %d, want a refusal naming sandbox_host:\n%s", code, stderr)
	}
	if stdout, stderr, code := kilnRun(t, append(slurm, "-var", "sandbox_host=10.0.0.5", pipeline)...); code != 0 {
		t.Errorf("kiln validate -var train_executor=slurm -var sandbox_host=10.0.0.5: exit %d\n%s%s", code, stdout, stderr)
	}

	m := planJSON(t, append(noNPU, pipeline)...)
	blocked := map[string]string{}
	for _, b := range m.Blocked {
		blocked[b.Address] = b.Reason
	}
	for _, want := range []struct{ addr, mention string }{
		{"host.a2", "8 NPUs"},
		{"host.a2", "CANN 8.3.RC1"},
		{"toolchain.cann", "set_env.sh"},
		{"exec.sft_train", "host.a2"},
		{"exec.rl_train", "host.a2"},
		{"exec.sft_merge", "toolchain.cann"},
		{"exec.vllm_ascend_wheel", "toolchain.cann"},
		{"host.a2", "needs " + filepath.Join(dir, "no-libjemalloc.so.2") + ", not found"},
		{"python_env.vllm_ascend_build", "python-kiln-missing3.10 not found"},
		{"python_env.retool", "python-kiln-missing3.10 not found"},
		{"python_env.sandbox_runtime", "python-kiln-missing3.10 not found"},
		{"python_env.sandbox", "python-kiln-missing3.11 not found"},
		{"python_env.poetry", "python-kiln-missing3.11 not found"},
		{"exec.verl_wheel", "needs python_env.vllm_ascend_build"},
		{"exec.vllm_wheel", "needs python_env.vllm_ascend_build"},
	} {
		reason, ok := blocked[want.addr]
		if !ok {
			t.Errorf("%s is not blocked; blocked: %v", want.addr, blocked)
			continue
		}
		if !strings.Contains(reason, want.mention) {
			t.Errorf("%s is blocked with %q, want a reason naming %q", want.addr, reason, want.mention)
		}
	}
	if m.Summary["create"]+m.Summary["start"] != len(m.Changes) {
		t.Errorf("a fresh plan should create or start every node, got summary %v", m.Summary)
	}

	// The text plan says each cause once, with the nodes it blocks under it.
	text, _, _ := kilnRun(t, append([]string{"plan"}, append(noNPU, pipeline)...)...)
	for _, once := range []string{"nnal/atb/set_env.sh not found", "needs 8 NPUs"} {
		if n := strings.Count(text, once); n != 1 {
			t.Errorf("the plan says %q %d times, want once:\n%s", once, n, text)
		}
	}
	if !strings.Contains(text, "17 nodes cannot run on this machine, for 7 reasons:") || !strings.Contains(text, "blocks 3 nodes: exec.sft_merge, exec.vllm_ascend_wheel, toolchain.cann") {
		t.Errorf("the plan does not group the nodes by cause:\n%s", text)
	}

	checkRetoolTools(t, pipeline, noNPU)
	checkRetoolGraph(t, pipeline, noNPU)
	checkRetoolImageTorch(t, pipeline, noNPU[:2])

	got := graphLines(m)
	golden := filepath.Join("testdata", "retool", "plan-graph.golden")
	if retoolUpdate() {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run TestRetoolPipeline -update to write it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("retool.hcl's graph changed (-golden +plan); if intended, run go test -run TestRetoolPipeline -update:\n%s", diff)
	}
}

// pinnedCommits are the commits pipeline.hcl pins for git_repo urls under
// exec.source_repos, by repository name.
var pinnedCommit = regexp.MustCompile(`url\s*=\s*"\$\{exec\.source_repos\.out\}/([\w-]+)"\s*\n\s*commit\s*=\s*"([0-9a-f]{40})"`)

// TestRetoolMiniSourceReposArePinned checks that make_repo.sh makes each
// repository at exactly the commit pipeline.hcl pins: author, committer,
// dates and modes are fixed, so the SHA depends only on the files.
func TestRetoolMiniSourceReposArePinned(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	example := filepath.Join("..", "..", "examples", "retool-mini")
	hcl, err := os.ReadFile(filepath.Join(example, "pipeline.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	pinned := map[string]string{}
	for _, m := range pinnedCommit.FindAllStringSubmatch(string(hcl), -1) {
		pinned[m[1]] = m[2]
	}
	out := t.TempDir()
	cmd := exec.Command("sh", "make_repo.sh")
	cmd.Dir = example
	cmd.Env = append(os.Environ(), "KILN_OUT="+out)
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make_repo.sh: %v\n%s", err, b)
	}
	made := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if name, sha, ok := strings.Cut(line, " "); ok {
			made[name] = sha
		}
	}
	if diff := cmp.Diff(made, pinned); diff != "" {
		t.Errorf("make_repo.sh makes other commits than pipeline.hcl pins (-made +pinned); pin the made ones:\n%s", diff)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func requirePythonVenv(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	if out, err := exec.Command("python3", "-m", "venv", filepath.Join(t.TempDir(), "venv")).CombinedOutput(); err != nil {
		t.Skipf("python3 with the venv module is unavailable (%v): %s", err, out)
	}
}

// TestRetoolMiniAppliesOffline applies examples/retool-mini end to end in a
// copy, with free ports: the second plan changes nothing (both services are
// healthy) and kiln destroy stops the services.
func TestRetoolMiniAppliesOffline(t *testing.T) {
	requirePythonVenv(t)
	dir := t.TempDir()
	copyTree(t, filepath.Join("..", "..", "examples", "retool-mini"), dir)
	hubPort, sandboxPort := freePort(t), freePort(t)
	for hubPort == sandboxPort {
		sandboxPort = freePort(t)
	}
	vars := []string{"-var", fmt.Sprintf("hub_port=%d", hubPort), "-var", fmt.Sprintf("sandbox_port=%d", sandboxPort)}
	withVars := func(cmd string) []string { return append(append([]string{cmd}, vars...), dir) }
	t.Cleanup(func() { kilnRun(t, withVars("destroy")...) })

	stdout, stderr, code := kilnRun(t, withVars("apply")...)
	if code != 0 {
		t.Fatalf("kiln apply: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "12 built, 2 started") {
		t.Errorf("kiln apply should build 12 nodes and start 2 services:\n%s", stdout)
	}

	rollouts, err := os.ReadFile(filepath.Join(dir, ".kiln", "out", "exec.rl_train", "rollouts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var scores []float64
	for _, line := range strings.Split(strings.TrimSpace(string(rollouts)), "\n") {
		var r struct {
			Pred  string  `json:"pred"`
			Score float64 `json:"score"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("rollout %q: %v", line, err)
		}
		scores = append(scores, r.Score)
	}
	// Three answers the sandbox computed right, one wrong (a two-turn
	// rollout: min(-0.6, -1 + (4-2)/2*0.1) = -0.9).
	if diff := cmp.Diff([]float64{1, 1, 1, -0.9}, scores, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("rollout scores (-want +got):\n%s", diff)
	}
	for _, f := range []string{
		"exec.sft_train/checkpoint/latest_checkpointed_iteration.txt",
		"exec.sft_train/checkpoint/global_step_4/model.json",
		"exec.sft_merge/huggingface/model.json",
		"exec.rl_train/global_step_4/model.json",
		"exec.rl_train/latest_checkpointed_iteration.txt",
		"exec.sft_preprocess/ReTool-SFT/data/train.jsonl",
	} {
		if _, err := os.Stat(filepath.Join(dir, ".kiln", "out", f)); err != nil {
			t.Errorf("missing output: %v", err)
		}
	}

	checkRetoolMiniUpstream(t, dir)
	checkRetoolReport(t, dir)

	m := planJSON(t, append(vars, dir)...)
	if m.Summary["no-op"] != len(m.Changes) || len(m.Changes) != 14 {
		t.Errorf("the second plan should leave all 14 nodes alone, got summary %v", m.Summary)
	}
	if stdout, _, _ := kilnRun(t, withVars("plan")...); !strings.HasPrefix(stdout, "No changes.") {
		t.Errorf("kiln plan after apply:\n%s", stdout)
	}

	stdout, stderr, code = kilnRun(t, withVars("destroy")...)
	if code != 0 {
		t.Fatalf("kiln destroy: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{"service.hub: stopped", "service.sandbox: stopped"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("kiln destroy should print %q:\n%s", want, stdout)
		}
	}
	for _, port := range []int{hubPort, sandboxPort} {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			t.Errorf("port %d still accepts connections after kiln destroy", port)
		}
	}
	m = planJSON(t, append(vars, dir)...)
	if m.Summary["start"] != 2 {
		t.Errorf("after kiln destroy the plan should start both services again, got summary %v", m.Summary)
	}
}

// checkRetoolMiniUpstream checks what retool-mini shows of the real
// upstream's shape after its apply: the plugin's retool.patch, whose last
// context line has no newline, went in with GNU patch; the data set's branch
// main was pinned with its origin; the training steps saw the verl checkout
// and the toolchain's PYTHONPATH both (their first line imports from each).
func checkRetoolMiniUpstream(t *testing.T, dir string) {
	t.Helper()
	log, err := os.ReadFile(filepath.Join(dir, ".kiln", "logs", "git_repo.verl.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"kiln: applied patch .kiln/out/git_repo.plugin/patch/verl/agent_loop.patch: git apply\n",
		"kiln: applied patch .kiln/out/git_repo.plugin/patch/verl/retool.patch: GNU patch (git apply refused it: corrupt patch at line 13)\n",
	} {
		if !strings.Contains(string(log), want) {
			t.Errorf("git_repo.verl's log does not say %q:\n%s", want, log)
		}
	}
	lock, err := os.ReadFile(filepath.Join(dir, "kiln.lock.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	pin := regexp.MustCompile(`pin "fetch\.aime_2024" \{\n  ref      = "main"\n  repo     = "datasets/Maxwell-Jia/AIME_2024"\n  revision = "[0-9a-f]{40}"\n\}`)
	if !pin.Match(lock) {
		t.Errorf("kiln.lock.hcl does not pin fetch.aime_2024's branch main:\n%s", lock)
	}
}
