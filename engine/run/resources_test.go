package run_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/pool"
	"github.com/kilnbuild/kiln/engine/run"
)

// TestApplyResourcesNeverOverlap: two nodes needing the whole npu pool run
// one after the other, as their own start and end stamps show.
func TestApplyResourcesNeverOverlap(t *testing.T) {
	dir := t.TempDir()
	var hcl strings.Builder
	for _, name := range []string{"train_a", "train_b"} {
		fmt.Fprintf(&hcl, `exec %q {
  resources = { npu = 2 }
  command   = "date +%%s%%N > $KILN_OUT/start; sleep 0.2; echo %s > $KILN_OUT/name; date +%%s%%N > $KILN_OUT/end"
}

`, name, name)
	}
	writeFiles(t, dir, map[string]string{"pipeline.hcl": hcl.String()})
	res := apply(t, context.Background(), dir, run.Options{Parallelism: 4, Pools: pool.Counts(map[string]int64{"npu": 2})})
	if res.Count(run.Built) != 2 {
		t.Fatalf("outcomes %v", outcomes(res))
	}
	type span struct{ start, end int64 }
	var spans []span
	for _, name := range []string{"train_a", "train_b"} {
		read := func(f string) int64 {
			b, err := os.ReadFile(filepath.Join(dir, ".kiln/out/exec."+name, f))
			if err != nil {
				t.Fatal(err)
			}
			v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		spans = append(spans, span{read("start"), read("end")})
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	if spans[1].start < spans[0].end {
		t.Errorf("runs overlap: %v", spans)
	}
}

func TestApplyResourceLargerThanPool(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"pipeline.hcl": `
exec "big" {
  resources = { npu = 16 }
  command   = "true"
}

exec "small" {
  command = "echo small > $KILN_OUT/s"
}
`})
	res := apply(t, context.Background(), dir, run.Options{Pools: pool.Counts(map[string]int64{"npu": 8})})
	want := map[string]run.Outcome{"exec.big": run.Failed, "exec.small": run.Built}
	if diff := cmp.Diff(want, outcomes(res)); diff != "" {
		t.Fatalf("outcomes (-want +got):\n%s", diff)
	}
	if err := result(t, res, "exec.big").Err; err == nil || !strings.Contains(err.Error(), "npu=16") {
		t.Errorf("error %v does not name the request", err)
	}
}
