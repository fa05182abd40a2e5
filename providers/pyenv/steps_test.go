package pyenv

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/zclconf/go-cty/cty"
)

func TestDecodeConfigDefaults(t *testing.T) {
	cfg, err := decodeConfig(decodeHCL(t, `install { packages = ["numpy==1.26.4"] }`))
	if err != nil {
		t.Fatal(err)
	}
	want := config{
		Python:   "python3",
		PipCheck: "error",
		Steps:    []step{{Packages: []string{"numpy==1.26.4"}}},
	}
	if d := cmp.Diff(want, cfg); d != "" {
		t.Errorf("config (-want +got):\n%s", d)
	}
}

func TestDecodeConfigErrors(t *testing.T) {
	if _, err := decodeConfig(decodeHCL(t, `pip_check = "sometimes"`)); err == nil || !strings.Contains(err.Error(), `pip_check = "sometimes"`) {
		t.Errorf("bad pip_check: %v", err)
	}
	v := decodeHCL(t, `install { packages = ["x"] }`)
	steps := v.GetAttr("install")
	unknown := cty.ObjectVal(map[string]cty.Value{
		"python": cty.UnknownVal(cty.String), "index_url": cty.NullVal(cty.String),
		"extra_index_urls": cty.NullVal(stringList), "find_links": cty.NullVal(stringList),
		"no_index": cty.False, "install": steps, "constraints": cty.NullVal(stringList), "pip_check": cty.StringVal("error"),
	})
	if _, err := decodeConfig(unknown); err == nil || !strings.Contains(err.Error(), "python is not known yet") {
		t.Errorf("unknown python: %v", err)
	}
}

func TestPipArgs(t *testing.T) {
	root := t.TempDir()
	writeWheel(t, filepath.Join(root, "dist"), "b", "1.0")
	writeWheel(t, filepath.Join(root, "dist"), "a", "1.0")
	cfg, err := decodeConfig(decodeHCL(t, `
index_url        = "https://pypi.example/simple"
extra_index_urls = ["https://download.pytorch.org/whl/cpu/"]
find_links       = ["wheelhouse", "https://example/links"]
no_index         = true
install {
  requirements       = ["requirements-npu.txt"]
  packages           = ["numpy==1.26.4", "./local/x.whl"]
  editable           = [".", "git+https://example/repo.git#egg=r"]
  wheels             = ["dist/*.whl"]
  no_deps            = true
  no_build_isolation = true
  extra_args         = ["-v"]
}
`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := cfg.Steps[0].pipArgs(cfg, root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"pip", "install", "--disable-pip-version-check", "--no-input",
		"--index-url", "https://pypi.example/simple",
		"--extra-index-url", "https://download.pytorch.org/whl/cpu/",
		"--find-links", filepath.Join(root, "wheelhouse"), "--find-links", "https://example/links",
		"--no-index", "--no-deps", "--no-build-isolation", "-v",
		"-r", filepath.Join(root, "requirements-npu.txt"),
		"numpy==1.26.4", filepath.Join(root, "local/x.whl"),
		"-e", root, "-e", "git+https://example/repo.git#egg=r",
		filepath.Join(root, "dist/a-1.0-py3-none-any.whl"), filepath.Join(root, "dist/b-1.0-py3-none-any.whl"),
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("pip args (-want +got):\n%s", d)
	}
}

func TestPipArgsErrors(t *testing.T) {
	root := t.TempDir()
	for src, want := range map[string]string{
		`install { wheels = ["dist/*.whl"] }`: `wheels pattern "dist/*.whl" matches no file`,
		`install { no_deps = true }`:          "nothing to install",
	} {
		cfg, err := decodeConfig(decodeHCL(t, src))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cfg.Steps[0].pipArgs(cfg, root); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", src, err, want)
		}
	}
}

func TestStepLabel(t *testing.T) {
	tests := []struct {
		s    step
		want string
	}{
		{step{Requirements: []string{"/s/.kiln/out/git_repo.verl/requirements-npu.txt"}, Packages: []string{"x"}}, "requirements-npu.txt"},
		{step{Requirements: []string{"reqs/dev.txt"}}, "reqs/dev.txt"},
		{step{Packages: []string{"torch==2.7.1", "torch-npu==2.7.1"}}, "torch==2.7.1"},
		{step{Editable: []string{"/s/.kiln/out/git_repo.vllm"}}, "git_repo.vllm"},
		{step{Wheels: []string{"/s/.kiln/out/exec.wheel/*.whl"}}, "exec.wheel/*.whl"},
		{step{}, "(empty)"},
	}
	for _, tt := range tests {
		if got := tt.s.label(); got != tt.want {
			t.Errorf("label of %+v = %q, want %q", tt.s, got, tt.want)
		}
	}
}
