package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine"
	"github.com/kilnbuild/kiln/engine/run"
	"github.com/kilnbuild/kiln/engine/state"
	"github.com/kilnbuild/kiln/providers"
	"github.com/kilnbuild/kiln/providers/host/hosttest"
)

// span is one run of an eval node as its command saw it: the ids in
// ASCEND_RT_VISIBLE_DEVICES and its start and end stamps.
type span struct {
	node       string
	ids        []int
	start, end int64
}

// devicesPipeline is an 8-card host whose card 3 reports health Warning,
// its NPUs split in two groups of 4, and count eval nodes asking for each
// npu = per; a node asking for all 8 cannot run.
func devicesPipeline(t *testing.T, count, per int) string {
	t.Helper()
	dir := t.TempDir()
	smi := filepath.Join(dir, "bin", "npu-smi")
	if err := os.MkdirAll(filepath.Dir(smi), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(smi, []byte(hosttest.NPUSmi(8, map[int]string{3: "Warning"})), 0o755); err != nil {
		t.Fatal(err)
	}
	src := fmt.Sprintf(`
host "a2" {
  npu_smi = %q
}

pool "npu" {
  groups = [[0, 1, 2, 3], [4, 5, 6, 7]]
}

exec "eval" {
  count     = %d
  resources = { npu = %d }
  command   = "echo ${count.index} > $KILN_OUT/index; date +%%s%%N > $KILN_OUT/start; echo $ASCEND_RT_VISIBLE_DEVICES > $KILN_OUT/devices; sleep 0.3; date +%%s%%N > $KILN_OUT/end"
}

exec "all" {
  resources = { npu = 8 }
  command   = "true"
}
`, smi, count, per)
	if err := os.WriteFile(filepath.Join(dir, "pipeline.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func openWorkspace(t *testing.T, dir string) *engine.Workspace {
	t.Helper()
	w, diags, err := engine.Open(engine.Options{Path: dir, Kinds: providers.All()})
	if err != nil || diags.HasErrors() {
		t.Fatalf("open: %v %s", err, diags.Error())
	}
	return w
}

// readSpans reads what each eval node's command wrote.
func readSpans(t *testing.T, dir string, count int) []span {
	t.Helper()
	var spans []span
	for i := range count {
		node := fmt.Sprintf("exec.eval[%d]", i)
		read := func(name string) string {
			b, err := os.ReadFile(filepath.Join(dir, ".kiln/out", fmt.Sprintf("exec.eval[%d]", i), name))
			if err != nil {
				t.Fatal(err)
			}
			return strings.TrimSpace(string(b))
		}
		s := span{node: node}
		for f := range strings.SplitSeq(read("devices"), ",") {
			id, err := strconv.Atoi(f)
			if err != nil {
				t.Fatalf("%s saw ASCEND_RT_VISIBLE_DEVICES=%q", node, read("devices"))
			}
			s.ids = append(s.ids, id)
		}
		s.start, _ = strconv.ParseInt(read("start"), 10, 64)
		s.end, _ = strconv.ParseInt(read("end"), 10, 64)
		spans = append(spans, s)
	}
	return spans
}

// checkSpans: runs that overlap in time share no device, device 3 is never
// handed out, each node's ids lie in one group, and at most most run at
// once.
func checkSpans(t *testing.T, spans []span, most int) {
	t.Helper()
	type event struct {
		at    int64
		delta int
	}
	var events []event
	for i, a := range spans {
		events = append(events, event{a.start, 1}, event{a.end, -1})
		if slices.Contains(a.ids, 3) {
			t.Errorf("%s was handed the unhealthy device 3: %v", a.node, a.ids)
		}
		if (a.ids[0] < 4) != (a.ids[len(a.ids)-1] < 4) {
			t.Errorf("%s got %v, across the two groups", a.node, a.ids)
		}
		for _, b := range spans[i+1:] {
			if a.start < b.end && b.start < a.end {
				for _, id := range a.ids {
					if slices.Contains(b.ids, id) {
						t.Errorf("%s and %s ran at the same time on device %d", a.node, b.node, id)
					}
				}
			}
		}
	}
	// The most runs at once: ends sort before starts at the same stamp.
	slices.SortFunc(events, func(a, b event) int {
		switch {
		case a.at < b.at:
			return -1
		case a.at > b.at:
			return 1
		}
		return a.delta - b.delta
	})
	now := 0
	for _, e := range events {
		if now += e.delta; now > most {
			t.Errorf("%d nodes ran at once, at most %d fit", now, most)
			return
		}
	}
}

// TestEachNodeGetsItsOwnNPUs: three npu = 4 evaluation nodes on an 8-card
// host whose card 3 is unhealthy. Only the group 4-7 holds 4 healthy cards,
// so they run one at a time on it; the records show the ids; the plan names
// the excluded device, and a node asking for 8 cannot run here.
func TestEachNodeGetsItsOwnNPUs(t *testing.T) {
	dir := devicesPipeline(t, 3, 4)
	w := openWorkspace(t, dir)
	pl, diags := w.Plan(context.Background())
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if diff := cmp.Diff([]string{"npu 3: health Warning, excluded"}, pl.Pools["npu"].Notes()); diff != "" {
		t.Errorf("plan notes (-want +got):\n%s", diff)
	}
	blocked := map[string]string{}
	for _, d := range pl.Changes {
		if d.Blocked != "" {
			blocked[d.Node.Addr.String()] = d.Blocked
		}
	}
	wantBlocked := map[string]string{"exec.all": "needs npu=8 but the npu pool has 7 devices (0-2,4-7); npu 3: health Warning, excluded"}
	if diff := cmp.Diff(wantBlocked, blocked); diff != "" {
		t.Errorf("blocked (-want +got):\n%s", diff)
	}

	res, err := w.Apply(context.Background(), engine.ApplyOptions{Parallelism: 8})
	if err != nil {
		t.Fatal(err)
	}
	outcomes := map[string]run.Outcome{}
	for _, n := range res.Nodes {
		outcomes[n.Addr.String()] = n.Outcome
	}
	want := map[string]run.Outcome{"host.a2": run.Built, "exec.eval[0]": run.Built, "exec.eval[1]": run.Built, "exec.eval[2]": run.Built, "exec.all": run.Failed}
	if diff := cmp.Diff(want, outcomes); diff != "" {
		t.Fatalf("outcomes (-want +got):\n%s", diff)
	}
	spans := readSpans(t, dir, 3)
	checkSpans(t, spans, 1)
	st, err := state.Load(filepath.Join(dir, ".kiln"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range spans {
		if diff := cmp.Diff([]int{4, 5, 6, 7}, s.ids); diff != "" {
			t.Errorf("%s ran on (-want +got):\n%s", s.node, diff)
		}
		rec := st.Records[s.node]
		if diff := cmp.Diff(map[string][]int{"npu": s.ids}, rec.Devices); diff != "" {
			t.Errorf("%s record's devices (-what it ran on +recorded):\n%s", s.node, diff)
		}
	}
}

// TestTwoRunAtOnceTheThirdWaits: three npu = 3 nodes on the same host: one
// fits the healthy part of each group, so two run at once on disjoint
// devices and the third waits.
func TestTwoRunAtOnceTheThirdWaits(t *testing.T) {
	dir := devicesPipeline(t, 3, 3)
	w := openWorkspace(t, dir)
	if _, err := w.Apply(context.Background(), engine.ApplyOptions{Parallelism: 8}); err != nil {
		t.Fatal(err)
	}
	spans := readSpans(t, dir, 3)
	checkSpans(t, spans, 2)
	st, err := state.Load(filepath.Join(dir, ".kiln"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range spans {
		if !slices.Equal(s.ids, []int{0, 1, 2}) && !slices.Equal(s.ids, []int{4, 5, 6}) {
			t.Errorf("%s ran on %v, want 0-2 or 4-6", s.node, s.ids)
		}
		log, err := os.ReadFile(filepath.Join(dir, st.Records[s.node].Log))
		if err != nil {
			t.Fatal(err)
		}
		line := fmt.Sprintf("kiln: holds npu %s (ASCEND_RT_VISIBLE_DEVICES=%s)", idsText(s.ids), strings.Trim(strings.Join(strings.Fields(fmt.Sprint(s.ids)), ","), "[]"))
		if first, _, _ := strings.Cut(string(log), "\n"); first != line {
			t.Errorf("%s log starts %q, want %q", s.node, first, line)
		}
	}
}

func idsText(ids []int) string {
	return fmt.Sprintf("%d-%d", ids[0], ids[len(ids)-1])
}
