package engine_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/state"
)

// TestStateOfAnEarlierKilnKeepsItsKeys: a state file of format 3, whose
// key lines are text, loads with every key as it was — nothing to do — and
// explains a change by the same influences; the next apply writes format 4.
func TestStateOfAnEarlierKilnKeepsItsKeys(t *testing.T) {
	steps := strings.ReplaceAll(twoSteps, `"in.txt"`, `"my in.txt"`)
	steps = strings.ReplaceAll(steps, "cat in.txt", "cat 'my in.txt'")
	// A toolchain's facts have names with a space (toolchain.setup PATH).
	steps += `
toolchain "cann" {
  setup   = ["cann/set_env.sh"]
  version = "8.3.RC1"
  probe {
    file = "cann/version.info"
  }
}

exec "third" {
  toolchain = toolchain.cann
  command   = "cat ${exec.first.out}/a.txt > $KILN_OUT/c.txt"
}
`
	dir := pipeline(t, map[string]string{"pipeline.hcl": steps, "my in.txt": "hello\n"})
	if err := os.MkdirAll(filepath.Join(dir, "cann"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "cann", "set_env.sh"), "export CANN_HOME=/opt/cann\n")
	write(t, filepath.Join(dir, "cann", "version.info"), "version=8.3.RC1\n")
	apply(t, open(t, dir, nil))
	written := records(t, filepath.Join(dir, ".kiln"))
	downgrade(t, filepath.Join(dir, ".kiln"))
	// Each line of the text reads back as the fields this kiln writes, so
	// nothing looks changed that did not change.
	if diff := cmp.Diff(written, records(t, filepath.Join(dir, ".kiln"))); diff != "" {
		t.Errorf("key lines read from format 3 (-as written +as read):\n%s", diff)
	}

	want := map[string]string{"exec.first": "no-op", "exec.second": "no-op", "exec.third": "no-op", "toolchain.cann": "no-op"}
	if diff := cmp.Diff(want, actions(t, open(t, dir, nil))); diff != "" {
		t.Fatalf("plan on a format-3 state (-want +got):\n%s", diff)
	}
	write(t, filepath.Join(dir, "my in.txt"), "changed\n")
	pl, diags := open(t, dir, nil).Plan(context.Background())
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for _, d := range pl.Changes {
		switch a := d.Node.Addr.String(); a {
		case "exec.first":
			if len(d.Reasons) != 1 || d.Reasons[0].String() != "input my in.txt changed: "+d.Reasons[0].Old+" → "+d.Reasons[0].New {
				t.Errorf("exec.first after an edit: %s %v, want one reason, its input changed", d.Action.Word(), d.Reasons)
			}
		case "exec.second", "exec.third":
			if d.Action.Word() != "maybe" {
				t.Errorf("%s after its upstream's edit: %s %v, want maybe (nothing of its own changed)", a, d.Action.Word(), d.Reasons)
			}
		}
	}
	apply(t, open(t, dir, nil))
	data, err := os.ReadFile(filepath.Join(dir, ".kiln", "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), `{"version":4,`) || !strings.Contains(string(data), `["input","my in.txt","`) {
		t.Errorf("the apply after the upgrade wrote %.200s", data)
	}
}

// records are the key lines of each record in the state in stateDir.
func records(t *testing.T, stateDir string) map[string][]hash.Line {
	t.Helper()
	st, err := state.Load(stateDir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]hash.Line{}
	for a, r := range st.Records {
		out[a] = r.KeyLines
	}
	return out
}

// downgrade rewrites the state in stateDir as a kiln of format 3 wrote it:
// one JSON document, key lines as their text.
func downgrade(t *testing.T, stateDir string) {
	t.Helper()
	st, err := state.Load(stateDir)
	if err != nil {
		t.Fatal(err)
	}
	var records []map[string]any
	for _, r := range st.Sorted() {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		var text []string
		for _, l := range r.KeyLines {
			text = append(text, l.Show())
		}
		m["key_lines"] = text
		records = append(records, m)
	}
	b, err := json.Marshal(map[string]any{"version": 3, "lineage": st.Lineage, "serial": st.Serial, "records": records})
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(stateDir, "state.json"), string(b))
}
