package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// stubPrograms is a folder of executable stand-ins with the given names, to
// be a PATH that holds exactly those programs.
func stubPrograms(t *testing.T, names ...string) string {
	t.Helper()
	bin := t.TempDir()
	for _, name := range names {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return bin
}

// blockedReasons is the plan's blocked nodes by address.
func blockedReasons(m planModel) map[string]string {
	out := map[string]string{}
	for _, b := range m.Blocked {
		out[b.Address] = b.Reason
	}
	return out
}

// checkRetoolCANNVersions checks retool.hcl's cann_version: 8.3.RC2, the
// release vllm-ascend's Dockerfile uses, is accepted and becomes what host.a2
// and toolchain.cann want; a release outside the accepted set is refused at
// validate with both accepted ones named.
func checkRetoolCANNVersions(t *testing.T, pipeline string, vars []string) {
	t.Helper()
	rc2 := append([]string{"-var", "cann_version=8.3.RC2"}, vars...)
	if stdout, stderr, code := kilnRun(t, append(append([]string{"validate"}, rc2...), pipeline)...); code != 0 {
		t.Fatalf("kiln validate -var cann_version=8.3.RC2: exit %d\n%s%s", code, stdout, stderr)
	}
	blocked := blockedReasons(planJSON(t, append(rc2, pipeline)...))
	if r := blocked["host.a2"]; !strings.Contains(r, "needs CANN 8.3.RC2, found none") {
		t.Errorf("with cann_version=8.3.RC2 host.a2 is blocked with %q, want it to want CANN 8.3.RC2", r)
	}
	if r := blocked["toolchain.cann"]; !strings.Contains(r, "install CANN 8.3.RC2") {
		t.Errorf("with cann_version=8.3.RC2 toolchain.cann is blocked with %q, want it to want CANN 8.3.RC2", r)
	}
	bad := append([]string{"validate", "-var", "cann_version=8.2.RC1"}, vars...)
	_, stderr, code := kilnRun(t, append(bad, pipeline)...)
	if code == 0 || !strings.Contains(stderr, "retool.hcl line") || !strings.Contains(stderr, "must be 8.3.RC1 (the run book's) or 8.3.RC2") {
		t.Errorf("kiln validate -var cann_version=8.2.RC1: exit %d, want a refusal at its line naming the accepted releases:\n%s", code, stderr)
	}
}

// checkRetoolTools plans retool.hcl on a PATH with git but neither GNU patch
// nor the compilers: the nodes that would run them are blocked at plan
// time, each naming the program and its package, and a git_repo without
// patches is not.
func checkRetoolTools(t *testing.T, pipeline string, vars []string) {
	t.Helper()
	t.Setenv("PATH", stubPrograms(t, "git", "g++", "make"))
	blocked := blockedReasons(planJSON(t, append(vars, pipeline)...))
	for _, want := range []struct{ addr, mention string }{
		{"git_repo.verl", "git_repo verl needs GNU patch, which applies the patches git apply refuses: patch not found in the build's PATH"},
		{"git_repo.verl", "install patch (apt-get install patch)"},
		{"git_repo.sandbox_fusion", "needs GNU patch"},
		{"exec.verl_wheel", "needs git_repo.verl"},
		{"host.build", "needs gcc, not found on PATH"},
		{"host.build", "apt-get install gcc"},
		{"exec.vllm_ascend_wheel", ""},
	} {
		r, ok := blocked[want.addr]
		switch {
		case !ok:
			t.Errorf("without patch and gcc on PATH %s is not blocked", want.addr)
		case !strings.Contains(r, want.mention):
			t.Errorf("without patch and gcc on PATH %s is blocked with %q, want %q", want.addr, r, want.mention)
		case strings.Contains(r, "install git"):
			t.Errorf("%s is blocked with %q: git is there, patch is missing", want.addr, r)
		}
	}
	for _, free := range []string{"git_repo.vllm", "git_repo.vllm_ascend", "git_repo.mindspeed_rl"} {
		if r, ok := blocked[free]; ok {
			t.Errorf("%s has no patches and git is on PATH, but it is blocked: %s", free, r)
		}
	}
}

// TestRetoolMiniCANNAndTools plans examples/retool-mini with a stand-in
// CANN 8.3.RC2: accepted with -var cann_version=8.3.RC2, and without it the
// plan says which version it found and which it wants. On a PATH without
// GNU patch, git_repo.verl, whose retool.patch only GNU patch applies, is
// blocked at plan time, naming patch.
func TestRetoolMiniCANNAndTools(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, filepath.Join("..", "..", "examples", "retool-mini"), dir)
	info := filepath.Join(dir, "cann", "version.info")
	if err := os.WriteFile(info, []byte("package_name=kiln-cann-stand-in\nversion=8.3.RC2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", stubPrograms(t, "git", "patch", "python3", "bash"))

	blocked := blockedReasons(planJSON(t, "-var", "cann_version=8.3.RC2", dir))
	if r, ok := blocked["toolchain.cann"]; ok {
		t.Errorf("a stand-in CANN 8.3.RC2 with cann_version=8.3.RC2 is blocked: %s", r)
	}
	blocked = blockedReasons(planJSON(t, dir))
	if r := blocked["toolchain.cann"]; !strings.Contains(r, "version 8.3.RC2 found in "+info+", 8.3.RC1 required") {
		t.Errorf("a stand-in CANN 8.3.RC2 with the default cann_version is blocked with %q, want the version found and the one wanted", r)
	}

	t.Setenv("PATH", stubPrograms(t, "git", "python3", "bash"))
	blocked = blockedReasons(planJSON(t, "-var", "cann_version=8.3.RC2", dir))
	if r := blocked["git_repo.verl"]; !strings.Contains(r, "needs GNU patch") || !strings.Contains(r, "apt-get install patch") || strings.Contains(r, "install git") {
		t.Errorf("without patch on PATH git_repo.verl is blocked with %q, want GNU patch named", r)
	}
	if _, ok := blocked["exec.rl_train"]; !ok {
		t.Errorf("without patch on PATH exec.rl_train, downstream of git_repo.verl, is not blocked")
	}
}

// checkRetoolImageTorch plans retool.hcl with use_image_torch on a stand-in
// for a vendor image's interpreter, which has torch and torch_npu 2.7.1:
// python_env.vllm_ascend_build (whose key is known before anything runs) is
// made with system_site_packages, and the image's packages are in its key
// with their versions, so another image rebuilds it.
func checkRetoolImageTorch(t *testing.T, pipeline string, vars []string) {
	t.Helper()
	bin := stubPrograms(t, "git", "patch", "gcc", "g++", "make")
	image := `#!/bin/sh
case "$*" in
  *importlib.metadata*) echo '[["torch", "2.7.1"], ["torch_npu", "2.7.1"], ["pip", "23.0.1"]]' ;;
  *) echo 3.11.6 ;;
esac
`
	if err := os.WriteFile(filepath.Join(bin, "python3.11"), []byte(image), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	args := append([]string{"explain", "-var", "use_image_torch=true", "-var", "python=python3.11"}, vars...)
	for _, env := range []string{"python_env.vllm_ascend_build"} {
		stdout, stderr, code := kilnRun(t, append(args, env, pipeline)...)
		if code != 0 {
			t.Fatalf("kiln explain %s: exit %d\n%s%s", env, code, stdout, stderr)
		}
		for _, want := range []string{"attr system_site_packages true", "python.system_site torch 2.7.1", "python.system_site torch-npu 2.7.1"} {
			if !strings.Contains(stdout, want) {
				t.Errorf("with use_image_torch the key of %s has no line %q:\n%s", env, want, stdout)
			}
		}
	}
}

// checkRetoolGraph draws retool.hcl's graph as the plan sees it: the nodes
// that cannot run here are marked so, in the blocked class, and the others
// keep their action's.
func checkRetoolGraph(t *testing.T, pipeline string, vars []string) {
	t.Helper()
	for _, format := range []string{"mermaid", "dot"} {
		stdout, stderr, code := kilnRun(t, append(append([]string{"graph", "-format", format}, vars...), pipeline)...)
		if code != 0 {
			t.Fatalf("kiln graph -format %s: exit %d\n%s", format, code, stderr)
		}
		marked := map[string]string{
			"mermaid": `"+ host.a2 (cannot run here)"]:::blocked`,
			"dot":     `"host.a2" [label="+ host.a2 (cannot run here)", "color"="darkgoldenrod", "fontcolor"="darkgoldenrod", "shape"="box", "style"="dashed"];`,
		}[format]
		free := map[string]string{
			"mermaid": `"+ git_repo.vllm"]:::create`,
			"dot":     `"git_repo.vllm" [label="+ git_repo.vllm", "color"="darkgreen"`,
		}[format]
		for _, want := range []string{marked, free, "exec.rl_train (cannot run here)"} {
			if !strings.Contains(stdout, want) {
				t.Errorf("kiln graph -format %s does not draw %s:\n%s", format, want, stdout)
			}
		}
		if strings.Contains(stdout, "git_repo.vllm (cannot run here)") {
			t.Errorf("kiln graph -format %s marks git_repo.vllm, which can run here:\n%s", format, stdout)
		}
	}
}
