package layered

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine"
	"github.com/kilnbuild/kiln/providers"
)

// TestThreeToolsAgree builds one small DAG with kiln (in-process), make and
// ninja, and checks Compare finds the trees equal, then that it notices a
// changed file and a missing one.
func TestThreeToolsAgree(t *testing.T) {
	for _, tool := range []string{"make", "ninja", "cksum"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (apt-get install -y make ninja-build coreutils)", tool)
		}
	}
	root := t.TempDir()
	d, err := New(Params{N: 30, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(root, d); err != nil {
		t.Fatal(err)
	}
	run(t, filepath.Join(root, MakeDir), "make", "-j2")
	run(t, filepath.Join(root, NinjaDir), "ninja", "-j2")
	applyKiln(t, filepath.Join(root, KilnDir))

	bad, err := Compare(root, d)
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) != 0 {
		t.Fatalf("freshly built trees differ: %v", bad)
	}

	last := d.Layers[len(d.Layers)-1][0]
	if err := os.WriteFile(filepath.Join(root, NinjaDir, BuildPath(last.Layer, last.Index)), []byte("0 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, MakeDir, BuildPath(0, 1))); err != nil {
		t.Fatal(err)
	}
	bad, err = Compare(root, d)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range bad {
		names = append(names, m.Node)
	}
	if diff := cmp.Diff([]string{Name(0, 1), last.Name()}, names); diff != "" {
		t.Errorf("mismatched nodes (-want +got):\n%s", diff)
	}
}

func TestCompareWithoutTrees(t *testing.T) {
	d, _ := New(Params{N: 4})
	if _, err := Compare(t.TempDir(), d); err == nil {
		t.Error("Compare of an empty folder succeeded, want an error")
	}
}

func run(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %v in %s: %v\n%s", name, args, dir, err, out)
	}
}

func applyKiln(t *testing.T, dir string) {
	t.Helper()
	w, diags, err := engine.Open(engine.Options{Path: dir, Kinds: providers.All()})
	if err != nil || diags.HasErrors() {
		t.Fatalf("open the generated pipeline: %v %s", err, diags.Error())
	}
	res, err := w.Apply(context.Background(), engine.ApplyOptions{Parallelism: 2})
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	if res.Failed() {
		for _, n := range res.Nodes {
			if n.Err != nil {
				t.Errorf("%s: %v", n.Addr, n.Err)
			}
		}
		t.Fatal("kiln apply failed")
	}
}
