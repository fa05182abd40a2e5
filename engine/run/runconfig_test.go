package run_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/run"
	"github.com/kilnbuild/kiln/engine/sandbox"
)

// TestRunConfigReadsSelf: a node that reads nothing of self runs with the
// configuration it was decided with; one that reads self.out or
// self.resources is evaluated again for its run, with its real output
// folder and what it was given, never the placeholders a decision sees.
func TestRunConfigReadsSelf(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"pipeline.hcl": `
exec "up" {
  command = "echo up > $KILN_OUT/v"
}

exec "plain" {
  command = "cat ${exec.up.out}/v > $KILN_OUT/v"
}

exec "self_out" {
  command = "cat ${exec.up.out}/v > ${self.out}/v; echo ${self.out} > ${self.out}/dir"
}

exec "self_resources" {
  resources = { cpu = 1 }
  command   = "echo cpu=${self.resources.cpu} > $KILN_OUT/v"
}
`})
	res := apply(t, context.Background(), dir, run.Options{})
	if res.Count(run.Built) != 4 {
		t.Fatalf("outcomes %v", outcomes(res))
	}
	got := map[string]string{}
	for _, name := range []string{"plain", "self_out", "self_resources"} {
		b, err := os.ReadFile(filepath.Join(dir, ".kiln/out/exec."+name, "v"))
		if err != nil {
			t.Fatal(err)
		}
		got[name] = string(b)
	}
	want := map[string]string{"plain": "up\n", "self_out": "up\n", "self_resources": "cpu=1\n"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}
	// self.out was the run folder, not the placeholder a decision sees.
	b, err := os.ReadFile(filepath.Join(dir, ".kiln/out/exec.self_out", "dir"))
	if err != nil {
		t.Fatal(err)
	}
	// A relocated run sees its run folder at the place its key names.
	under := filepath.Join(dir, ".kiln", "store")
	if sandbox.Relocation() == nil {
		under = sandbox.ResultAt("")
	}
	if d := strings.TrimSpace(string(b)); !strings.HasPrefix(d, under) {
		t.Errorf("self.out was %q, want a run folder under %s", d, under)
	}
}
