package pyenv

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/zclconf/go-cty/cty"
)

func TestVenvEnv(t *testing.T) {
	got := venvEnv([]string{"PATH=/usr/bin", "HOME=/h", "KILN_OUT=/v"}, "/v", [][2]string{{"VLLM_TARGET_DEVICE", "empty"}, {"PIP_NO_INPUT", "0"}})
	want := []string{
		"PATH=/usr/bin", "HOME=/h", "KILN_OUT=/v",
		"VIRTUAL_ENV=/v", "PATH=/v/bin:/usr/bin", "PIP_DISABLE_PIP_VERSION_CHECK=1", "PIP_CONFIG_FILE=" + os.DevNull,
		"VLLM_TARGET_DEVICE=empty", "PIP_NO_INPUT=0", "PIP_NO_INPUT=1",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("env (-want +got):\n%s", d)
	}
	if v, _ := lookupEnv(got, "PIP_NO_INPUT"); v != "1" {
		t.Errorf("PIP_NO_INPUT = %q, want the last value 1", v)
	}
	kept := venvEnv([]string{"PIP_CONFIG_FILE=/etc/pip.conf"}, "/v", nil)
	if v, _ := lookupEnv(kept, "PIP_CONFIG_FILE"); v != "/etc/pip.conf" {
		t.Errorf("an explicit PIP_CONFIG_FILE was replaced by %q", v)
	}
}

func TestFindInterpreter(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "bin", "notexec"), "")
	py := filepath.Join(dir, "bin", "mypython")
	writeFile(t, py, "#!/bin/sh\n")
	if err := os.Chmod(py, 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=relative:" + filepath.Join(dir, "bin")}
	if got, err := findInterpreter("mypython", env, "/nowhere"); err != nil || got != py {
		t.Errorf("by name: %q, %v", got, err)
	}
	if got, err := findInterpreter("bin/mypython", nil, dir); err != nil || got != py {
		t.Errorf("relative to root: %q, %v", got, err)
	}
	if _, err := findInterpreter("notexec", env, dir); err == nil || !strings.Contains(err.Error(), "no such executable on PATH") {
		t.Errorf("non-executable file found: %v", err)
	}
	if _, err := findInterpreter("bin/notexec", env, dir); err == nil || !strings.Contains(err.Error(), "not an executable file") {
		t.Errorf("non-executable path accepted: %v", err)
	}
}

func TestExports(t *testing.T) {
	got := New().Exports(&kind.Node{Out: "/p/.kiln/out/python_env.train"})
	want := map[string]cty.Value{
		"python":        cty.StringVal("/p/.kiln/out/python_env.train/bin/python"),
		"bin":           cty.StringVal("/p/.kiln/out/python_env.train/bin"),
		"site_packages": cty.UnknownVal(cty.String),
	}
	for k, w := range want {
		if g, ok := got[k]; !ok || !g.RawEquals(w) {
			t.Errorf("export %s = %#v, want %#v", k, g, w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("exports %v, want only %v", got, want)
	}
}
