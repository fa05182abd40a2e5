package pyenv

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Later steps override earlier ones; constraints catch it and name the
// step, and pip check's complaints are listed with them.
func TestBuildConstraintsViolated(t *testing.T) {
	needPython(t)
	t.Parallel()
	p := newPipeline(t)
	writeWheel(t, filepath.Join(p.root, "dist1"), "alpha", "1.0")
	writeWheel(t, filepath.Join(p.root, "dist1"), "delta", "1.0", "missingdep>=1")
	writeWheel(t, filepath.Join(p.root, "dist2"), "alpha", "1.1")
	src := `
no_index = true
install {
  wheels  = ["dist1/*.whl"]
  no_deps = true
}
install {
  packages = ["./dist2/alpha-1.1-py3-none-any.whl"]
  no_deps  = true
}
constraints = ["alpha==1.0", "delta<1.0", "absent", "pip", "delta>=1.0"]
`
	b, _, err := p.build(t, &PythonEnv{KillGrace: DefaultKillGrace}, src)
	if err == nil {
		t.Fatalf("build succeeded; want a constraints error\nlog:\n%s", b.Log)
	}
	want := []string{
		"constraints not met:",
		"  alpha: installed 1.1, required ==1.0 (installed by step 2: ./dist2/alpha-1.1-py3-none-any.whl)",
		"  delta: installed 1.0, required <1.0 (installed by step 1: dist1/*.whl)",
		"  absent: not installed, required any version (no install step installed it)",
		"pip check found broken requirements:",
		"  delta 1.0 requires missingdep, which is not installed.",
		`Pin the versions you need in a later install step (for example packages = ["name==version"] with no_deps = true) or change constraints; set pip_check = "warn" to accept what pip check reports`,
	}
	if d := cmp.Diff(want, strings.Split(err.Error(), "\n")); d != "" {
		t.Errorf("error (-want +got):\n%s", d)
	}
}

// A failing pip invocation names its step and repeats pip's last lines.
func TestBuildFailingStep(t *testing.T) {
	needPython(t)
	t.Parallel()
	p := newPipeline(t)
	src := `
no_index = true
install {
  wheels = ["` + p.store + `/wheels/*.whl"]
}
install {
  packages = ["nosuchpkg==9.9", "alpha"]
}
`
	b, _, err := p.build(t, &PythonEnv{KillGrace: DefaultKillGrace}, src)
	if err == nil {
		t.Fatalf("build succeeded; want step 2 to fail\nlog:\n%s", b.Log)
	}
	for _, want := range []string{
		"install step 2 (nosuchpkg==9.9) failed",
		"pip's last lines:",
		"No matching distribution found for nosuchpkg==9.9",
		"index_url, extra_index_urls, find_links, no_index on the node",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

func TestBuildInterpreterMissing(t *testing.T) {
	p := pipeline{root: t.TempDir()}
	_, _, err := p.build(t, New().(*PythonEnv), `python = "python-kiln-missing"`)
	if err == nil || !strings.Contains(err.Error(), `python = "python-kiln-missing": no such executable on PATH`) {
		t.Errorf("err = %v; want it to name the interpreter and PATH", err)
	}
}

func TestBuildRejectsBadConstraintBeforeCreatingTheVenv(t *testing.T) {
	p := pipeline{root: t.TempDir()}
	b, _, err := p.build(t, New().(*PythonEnv), `constraints = ["torch=2.7.1"]`)
	if err == nil || !strings.Contains(err.Error(), `constraint "torch=2.7.1"`) {
		t.Errorf("err = %v; want it to name the constraint", err)
	}
	if log := b.Log.(*bytes.Buffer).String(); log != "" {
		t.Errorf("the build ran commands despite the bad constraint:\n%s", log)
	}
}

// An uninstall step removes a distribution an earlier step pulled in (as
// the Ascend images remove triton), and absent proves it stayed removed;
// without the step, absent names the step that installed it.
func TestBuildUninstallAndAbsent(t *testing.T) {
	needPython(t)
	t.Parallel()
	p := newPipeline(t)
	writeWheel(t, filepath.Join(p.root, "dist"), "torchy", "2.7.1", "tritonish")
	writeWheel(t, filepath.Join(p.root, "dist"), "tritonish", "3.3.1")
	install := `
no_index = true
install {
  wheels = ["dist/*.whl"]
}
`
	b, res, err := p.build(t, &PythonEnv{KillGrace: DefaultKillGrace}, install+`
install {
  uninstall = ["tritonish"]
}
absent    = ["tritonish"]
pip_check = "off"
`)
	if err != nil {
		t.Fatalf("build: %v\nlog:\n%s", err, b.Log)
	}
	if strings.Contains(res.Attrs["freeze"], "tritonish") || !strings.Contains(res.Attrs["freeze"], "torchy") {
		t.Errorf("freeze after the uninstall step:\n%s", res.Attrs["freeze"])
	}
	if !strings.Contains(b.Log.(*bytes.Buffer).String(), "pip uninstall --disable-pip-version-check --no-input --yes tritonish") {
		t.Errorf("the log does not show the uninstall step:\n%s", b.Log)
	}

	_, _, err = p.build(t, &PythonEnv{KillGrace: DefaultKillGrace}, install+`
absent    = ["tritonish"]
pip_check = "off"
`)
	if err == nil || !strings.Contains(err.Error(), "tritonish: installed 3.3.1, required absent (installed by step 1: dist/*.whl)") {
		t.Errorf("error = %v, want tritonish named as present, with its step", err)
	}

	_, _, err = p.build(t, &PythonEnv{KillGrace: DefaultKillGrace}, `
install {
  uninstall = ["tritonish"]
  no_deps   = true
}
`)
	if err == nil || !strings.Contains(err.Error(), "a step that uninstalls does nothing else") {
		t.Errorf("error = %v, want a step that uninstalls and installs refused", err)
	}
}
