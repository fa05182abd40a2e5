package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/providers/exec"
)

// memoPipeline is a per-sample workflow with a dynamic fan-out, as the
// memo meets it: samples found by fileset, a split into as many shards as
// var.regions says, one instance per shard the split wrote (made from
// that shard's file), a merge and a report that reads a local and a
// variable. %s is the report's command.
const memoPipeline = `
variable "regions" {
  type    = number
  default = 2
}

variable "title" {
  default = "report"
}

locals {
  samples = { for f in fileset("data", "*.txt") : trimsuffix(f, ".txt") => "data/${f}" }
  heading = "# ${var.title}"
}

exec "count" {
  for_each = local.samples
  inputs   = [each.value]
  command  = "wc -w < ${each.value} | tr -d ' ' > $KILN_OUT/n; echo ${each.key} >> $KILN_OUT/n"
}

exec "split" {
  command = <<-EOT
    cat ${join(" ", [for k, c in exec.count : "${c.out}/n"])} | paste - - |
      awk -v n=${var.regions} -v out=$KILN_OUT '{ print > (out "/shard-" ($1 %% n + 1)) }
        END { for (i = 1; i <= n; i++) printf "" >> (out "/shard-" i) }'
  EOT
}

exec "annotate" {
  for_each = glob_wildcards("${exec.split.out}/shard-{region}")
  command  = "awk '{ print $0, \"region-${each.key}\" }' ${each.value} > $KILN_OUT/annotated"
}

exec "merge" {
  command = "cat ${join(" ", [for r, a in exec.annotate : "${a.out}/annotated"])} | sort > $KILN_OUT/all"
}

exec "report" {
  command = "%s"
}
`

// TestMemoAppliesAsACleanBuild: a seeded run of edits — a sample's
// content, a new sample, -var regions, a variable a local reads, the
// report's command — each applied where the memo of the last apply is
// consulted, and built again from nothing in a fresh folder. Every result
// must be the same: what the memo vouched for is what deciding it would
// have given, through dynamic instances made from files an upstream wrote
// again in the same apply.
func TestMemoAppliesAsACleanBuild(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"data/a.txt": "one two three\n",
		"data/b.txt": "four five\n",
		"data/c.txt": "six\n",
	}
	report := `{ echo '${local.heading}'; wc -l < ${exec.merge.out}/all; } > $KILN_OUT/report.md`
	vars := map[string]string{}
	write := func(root string) {
		t.Helper()
		for name, content := range files {
			p := filepath.Join(root, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if old, err := os.ReadFile(p); err == nil && string(old) == content {
				continue
			}
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		hcl := fmt.Sprintf(memoPipeline, strings.ReplaceAll(report, `"`, `\"`))
		if err := os.WriteFile(filepath.Join(root, "pipeline.hcl"), []byte(hcl), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	vouched := 0
	apply := func(root string, say func(string)) {
		t.Helper()
		w, diags, err := Open(Options{Path: root, Kinds: []kind.Kind{exec.New()}, Vars: vars, DebugPlan: say})
		if err != nil || diags.HasErrors() {
			t.Fatalf("open %s: %v %s", root, err, diags.Error())
		}
		res, err := w.Apply(context.Background(), ApplyOptions{Parallelism: 2})
		if err != nil || res.Failed() {
			t.Fatalf("apply %s: %v", root, err)
		}
	}
	counting := func(s string) {
		var n, of int
		if _, err := fmt.Sscanf(s, "the memo: %d of %d nodes up to date as recorded", &n, &of); err == nil {
			vouched += n
		}
	}
	rng := rand.New(rand.NewPCG(7, 22))
	edits := []func() string{
		func() string {
			name := fmt.Sprintf("data/%c.txt", 'a'+rng.IntN(3))
			files[name] += strings.Repeat("w ", 1+rng.IntN(3)) + "\n"
			return "edit " + name
		},
		func() string {
			name := fmt.Sprintf("data/s%d.txt", rng.IntN(100))
			files[name] = strings.Repeat("x ", 1+rng.IntN(5)) + "\n"
			return "add " + name
		},
		func() string {
			vars["regions"] = fmt.Sprint(1 + rng.IntN(4))
			return "-var regions=" + vars["regions"]
		},
		func() string {
			vars["title"] = fmt.Sprintf("t%d", rng.IntN(3))
			return "-var title=" + vars["title"]
		},
		func() string {
			report = fmt.Sprintf(`{ echo '${local.heading}'; echo %d; wc -l < ${exec.merge.out}/all; } > $KILN_OUT/report.md`, rng.IntN(3))
			return "the report's command"
		},
		func() string { return "nothing" },
	}
	write(dir)
	apply(dir, nil)
	for step := range 24 {
		what := edits[rng.IntN(len(edits))]()
		write(dir)
		apply(dir, counting)
		fresh := t.TempDir()
		write(fresh)
		apply(fresh, nil)
		for _, out := range []string{"exec.merge/all", "exec.report/report.md"} {
			got, err1 := os.ReadFile(filepath.Join(dir, ".kiln", "out", out))
			want, err2 := os.ReadFile(filepath.Join(fresh, ".kiln", "out", out))
			if err1 != nil || err2 != nil || string(got) != string(want) {
				t.Fatalf("step %d (%s): %s after the apply that consulted the memo:\n%s(%v)\nbuilt from nothing:\n%s(%v)", step, what, out, got, err1, want, err2)
			}
		}
	}
	if vouched == 0 {
		t.Fatal("the memo vouched for no node in any apply: the test does not exercise it")
	}
	t.Logf("the memo vouched for %d nodes over 24 applies", vouched)
}
