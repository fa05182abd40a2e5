package engine_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/state"
)

// TestStateOfAnEarlierKilnKeepsItsKeys: a state file of format 3, whose
// key lines are text, loads with every key as it was — nothing to do — and
// explains a change by the same influences; the next apply writes format 4.
func TestStateOfAnEarlierKilnKeepsItsKeys(t *testing.T) {
	steps := strings.ReplaceAll(twoSteps, `"in.txt"`, `"my in.txt"`)
	steps = strings.ReplaceAll(steps, "cat in.txt", "cat 'my in.txt'")
	dir := pipeline(t, map[string]string{"pipeline.hcl": steps, "my in.txt": "hello\n"})
	apply(t, open(t, dir, nil))
	downgrade(t, filepath.Join(dir, ".kiln"))

	want := map[string]string{"exec.first": "no-op", "exec.second": "no-op"}
	if diff := cmp.Diff(want, actions(t, open(t, dir, nil))); diff != "" {
		t.Fatalf("plan on a format-3 state (-want +got):\n%s", diff)
	}
	write(t, filepath.Join(dir, "my in.txt"), "changed\n")
	pl, diags := open(t, dir, nil).Plan(context.Background())
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for _, d := range pl.Changes {
		if d.Node.Addr.String() != "exec.first" {
			continue
		}
		if len(d.Reasons) != 1 || d.Reasons[0].String() != "input my in.txt changed: "+d.Reasons[0].Old+" → "+d.Reasons[0].New {
			t.Errorf("exec.first after an edit: %s %v, want one reason, its input changed", d.Action.Word(), d.Reasons)
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
