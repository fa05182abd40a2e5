package pyenv

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/kind"
)

// systemPackage is a distribution python3 itself has (from its
// site-packages or the system's dist-packages) that a fresh venv does not:
// its name and version.
func systemPackage(t *testing.T) (name, version string) {
	t.Helper()
	needPython(t)
	list := func(python string) [][2]string {
		out, err := exec.Command(python, "-I", "-c", systemSiteScript).Output()
		if err != nil {
			t.Fatalf("%s lists no distributions: %v", python, err)
		}
		var d [][2]string
		if err := json.Unmarshal(out, &d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	venv := filepath.Join(t.TempDir(), "venv")
	if out, err := exec.Command("python3", "-m", "venv", "--without-pip", venv).CombinedOutput(); err != nil {
		t.Fatalf("python3 -m venv: %v\n%s", err, out)
	}
	// What every venv kiln makes holds besides the interpreter's own.
	own := map[string]bool{"pip": true, "setuptools": true, "wheel": true}
	for _, d := range list(filepath.Join(venv, "bin", "python")) {
		own[NormaliseName(d[0])] = true
	}
	for _, d := range list("python3") {
		if n := NormaliseName(d[0]); n != "" && !own[n] {
			return n, d[1]
		}
	}
	t.Skip("python3 has no distributions of its own besides what every venv has")
	return "", ""
}

// TestSystemSitePackages builds a venv with system_site_packages = true
// from the real python3: the system's package satisfies a constraint and is
// in the freeze (the digest), and the plan-time probe keys its version, so
// a changed image rebuilds. Without the switch the same constraint fails.
func TestSystemSitePackages(t *testing.T) {
	name, version := systemPackage(t)
	k := New().(*PythonEnv)
	cfg := `
python               = "python3"
no_index             = true
system_site_packages = %s
constraints          = ["` + name + `==` + version + `"]
`
	p := newPipeline(t)
	b, res, err := p.build(t, k, strings.Replace(cfg, "%s", "true", 1))
	if err != nil {
		t.Fatalf("Build with system_site_packages: %v\nlog:\n%s", err, b.Log)
	}
	if !strings.Contains(b.Log.(interface{ String() string }).String(), "-m venv --system-site-packages ") {
		t.Errorf("the log does not show the venv made with --system-site-packages:\n%s", b.Log)
	}
	found := false
	for _, e := range strings.Split(res.Attrs["freeze"], "\n") {
		found = found || entryName(e) == name
	}
	if !found {
		t.Errorf("the freeze, and so the digest, does not hold the system's %s:\n%s", name, res.Attrs["freeze"])
	}

	n := &kind.Node{Addr: addr.Node{Kind: "python_env", Name: "train"}, Config: decodeHCL(t, strings.Replace(cfg, "%s", "true", 1)), Root: p.root, Env: testEnv(t)}
	probe, err := k.Probe(context.Background(), n, nil)
	if err != nil || probe.Blocked != "" {
		t.Fatalf("Probe: %v %v", err, probe)
	}
	var got string
	for _, l := range probe.KeyLines {
		if l[0] == "python.system_site "+name {
			got = l[1]
		}
	}
	if got != version {
		t.Errorf("the key line of %s is %q, want its version %q; key lines: %v", name, got, version, probe.KeyLines)
	}

	n.Config = decodeHCL(t, strings.Replace(cfg, "%s", "false", 1))
	if probe, _ := k.Probe(context.Background(), n, nil); len(probe.KeyLines) != 1 {
		t.Errorf("without system_site_packages the key has only the interpreter's version, got %v", probe.KeyLines)
	}
	if b, _, err := p.build(t, k, strings.Replace(cfg, "%s", "false", 1)); err == nil || !strings.Contains(err.Error(), name) {
		t.Errorf("without system_site_packages the constraint on the system's %s should fail, got %v\nlog:\n%s", name, err, b.Log)
	}
}

// TestSystemSiteKeyLines: the listing in sys.path order becomes one sorted
// line per normalised name, the first one found winning, as an import
// would.
func TestSystemSiteKeyLines(t *testing.T) {
	got := systemSiteKeyLines([][2]string{{"torch_npu", "2.7.1"}, {"PyYAML", "6.0"}, {"torch-npu", "2.5.1"}, {"", "1"}})
	want := [][2]string{{"python.system_site pyyaml", "6.0"}, {"python.system_site torch-npu", "2.7.1"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("key lines (-want +got):\n%s", diff)
	}
}
