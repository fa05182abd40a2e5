package pyenv

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/kind"
)

func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not on PATH")
	}
}

// pipeline is a pipeline folder with its state folder, holding what
// upstream nodes would have produced: wheels, a requirements file and a
// source project.
type pipeline struct {
	root, state, store string
}

func newPipeline(t *testing.T) pipeline {
	root := t.TempDir()
	p := pipeline{root: root, state: filepath.Join(root, ".kiln"), store: filepath.Join(root, ".kiln", "store")}
	writeWheel(t, filepath.Join(p.store, "wheels"), "alpha", "1.0")
	writeWheel(t, filepath.Join(p.store, "beta"), "beta", "2.0")
	// pip expands ${BETA_DIR} from the step's env.
	writeFile(t, filepath.Join(p.store, "reqs", "requirements.txt"), "${BETA_DIR}/beta-2.0-py3-none-any.whl\n")
	writeProject(t, filepath.Join(p.store, "gamma"), "gamma", "0.3")
	return p
}

func (p pipeline) build(t *testing.T, k *PythonEnv, src string) (*kind.Build, *kind.Result, error) {
	t.Helper()
	b := &kind.Build{
		Node: kind.Node{
			Addr:   addr.Node{Kind: "python_env", Name: "train"},
			Config: decodeHCL(t, src),
			Root:   p.root,
			Out:    filepath.Join(p.state, "out", "python_env.train"),
			State:  p.state,
		},
		Dir: t.TempDir(),
		Env: testEnv(t),
		Log: &bytes.Buffer{},
	}
	res, err := k.Build(context.Background(), b)
	return b, res, err
}

func (p pipeline) fullConfig() string {
	return fmt.Sprintf(`
no_index = true
install {
  wheels = ["%[1]s/wheels/alpha-*.whl"]
}
install {
  requirements = ["%[1]s/reqs/requirements.txt"]
  env          = { BETA_DIR = "%[1]s/beta" }
}
install {
  editable = ["%[1]s/gamma"]
}
constraints = ["alpha==1.0", "Beta>=2.0,<3", "gamma~=0.3", "pip"]
`, p.store)
}

// withoutSeed drops the distributions every new venv has (pip, setuptools),
// whose versions depend on the interpreter.
func withoutSeed(freeze string) []string {
	var out []string
	for _, e := range strings.Split(freeze, "\n") {
		if n := entryName(e); n != "pip" && n != "setuptools" {
			out = append(out, e)
		}
	}
	return out
}

func fileSum(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

func findEntry(freeze []string, name string) string {
	for _, e := range freeze {
		if entryName(e) == name {
			return e
		}
	}
	return "(no entry for " + name + ")"
}

func pythonOutput(t *testing.T, python string, code string) string {
	t.Helper()
	out, err := exec.Command(python, "-c", code).CombinedOutput()
	if err != nil {
		t.Fatalf("%s -c %q: %v\n%s", python, code, err, out)
	}
	return strings.TrimSpace(string(out))
}

// Two pipelines in different folders build the same venv into different
// output folders: the venvs work, and their digests are equal because paths
// under the state folder are normalised.
func TestBuildWheelsRequirementsEditable(t *testing.T) {
	needPython(t)
	t.Parallel()
	k := &PythonEnv{KillGrace: DefaultKillGrace}
	pipelines := []pipeline{newPipeline(t), newPipeline(t)}
	builds := make([]*kind.Build, 2)
	results := make([]*kind.Result, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, p := range pipelines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			builds[i], results[i], errs[i] = p.build(t, k, p.fullConfig())
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("build %d: %v\nlog:\n%s", i, err, builds[i].Log)
		}
	}
	a, res := builds[0], results[0]

	got := pythonOutput(t, filepath.Join(a.Dir, "bin", "python"), "import alpha, beta, gamma; print(alpha.VERSION, beta.VERSION, gamma.__file__)")
	want := "1.0 2.0 " + filepath.Join(pipelines[0].store, "gamma", "gamma", "__init__.py")
	if got != want {
		t.Errorf("imports in the venv: got %q, want %q (gamma must come from the editable project)", got, want)
	}

	store := pipelines[0].store
	wantFreeze := []string{
		"-e $KILN_STATE/store/gamma  # Editable install with no version control (gamma==0.3)",
		"alpha @ file://$KILN_STATE/store/wheels/alpha-1.0-py3-none-any.whl#sha256=" + fileSum(t, store+"/wheels/alpha-1.0-py3-none-any.whl"),
		"beta @ file://$KILN_STATE/store/beta/beta-2.0-py3-none-any.whl#sha256=" + fileSum(t, store+"/beta/beta-2.0-py3-none-any.whl"),
	}
	if d := cmp.Diff(wantFreeze, withoutSeed(res.Attrs["freeze"])); d != "" {
		t.Errorf("recorded freeze (-want +got):\n%s", d)
	}
	if len(res.Digest) != 64 {
		t.Errorf("digest %q is not 64 hex characters", res.Digest)
	}
	if results[0].Digest != results[1].Digest {
		t.Errorf("digests differ between identical builds in different folders: %s and %s", results[0].Digest, results[1].Digest)
	}

	out := a.Out
	if got := res.Exports["python"].AsString(); got != filepath.Join(out, "bin", "python") {
		t.Errorf("python export = %q", got)
	}
	site := res.Exports["site_packages"].AsString()
	rel, err := filepath.Rel(out, site)
	if err != nil || !strings.HasPrefix(rel, "lib/python") || filepath.Base(rel) != "site-packages" {
		t.Errorf("site_packages export = %q, want %s/lib/pythonX.Y/site-packages", site, out)
	}
	if _, err := os.Stat(filepath.Join(a.Dir, rel, "alpha", "__init__.py")); err != nil {
		t.Errorf("alpha is not in the exported site-packages: %v", err)
	}
	log := a.Log.(*bytes.Buffer).String()
	for _, want := range []string{"install step 1/3", "install step 3/3", "Successfully installed gamma-0.3"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q", want)
		}
	}

	t.Run("verify", func(t *testing.T) {
		verifyDrift(t, k, builds[1], results[1])
	})
}

// verifyDrift checks that an intact venv has no drift and that one changed
// by hand names what changed.
func verifyDrift(t *testing.T, k *PythonEnv, b *kind.Build, res *kind.Result) {
	ctx := context.Background()
	rec := &kind.Record{Digest: res.Digest, Dir: b.Dir, Attrs: res.Attrs}
	drift, err := k.Verify(ctx, &b.Node, rec)
	if err != nil || drift != "" {
		t.Fatalf("Verify of an intact venv = %q, %v; want no drift", drift, err)
	}

	newer := writeWheel(t, t.TempDir(), "alpha", "1.1")
	pip := filepath.Join(b.Dir, "bin", "pip")
	for _, args := range [][]string{{"uninstall", "-y", "beta"}, {"install", "--no-index", newer}} {
		if out, err := exec.Command(pip, args...).CombinedOutput(); err != nil {
			t.Fatalf("pip %v: %v\n%s", args, err, out)
		}
	}
	drift, err = k.Verify(ctx, &b.Node, rec)
	if err != nil {
		t.Fatal(err)
	}
	old := strings.Split(res.Attrs["freeze"], "\n")
	want := "the venv changed outside kiln: removed: " + findEntry(old, "beta") + "; " +
		"changed: " + findEntry(old, "alpha") + " → alpha @ file://" + newer + "#sha256=" + fileSum(t, newer)
	if drift != want {
		t.Errorf("drift:\n got %q\nwant %q", drift, want)
	}

	if err := os.Remove(filepath.Join(b.Dir, "bin", "python")); err != nil {
		t.Fatal(err)
	}
	drift, err = k.Verify(ctx, &b.Node, rec)
	if err != nil || !strings.Contains(drift, "interpreter is gone") {
		t.Errorf("Verify without bin/python = %q, %v; want drift naming the interpreter", drift, err)
	}
}
