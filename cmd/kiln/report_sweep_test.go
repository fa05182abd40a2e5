package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/internal/browser"
)

// sweepPipeline trains with var.lr, logging its train and validation loss
// and accuracy, and evaluates; the evaluation fails for lr 0.3.
const sweepPipeline = `variable "lr" {
  default = "0.1"
}

exec "train" {
  command = "for s in 3 2 1; do echo \"step:$((4-s)) - train/loss:${var.lr}$s - val/loss:${var.lr}$((s+1)) - val/acc:0.$s\"; done; echo ${var.lr} > $KILN_OUT/model"

  metrics {
    format = "verl"
  }
}

exec "eval" {
  command = "if grep -q 0.3 ${exec.train.out}/model; then exit 3; fi; cp ${exec.train.out}/model $KILN_OUT/eval"
}
`

// sweepPage is what the browser reads of the runs section.
type sweepPage struct {
	Runs   []string            `json:"runs"`   // each row: "ID status differs"
	Charts map[string][]string `json:"charts"` // node/group → labels of its drawn lines
}

const readSweep = `(() => {
  const runs = [...document.querySelectorAll("#runs table.runs tbody tr")].map((tr) =>
    [...tr.children].slice(0, 3).map((td) => td.textContent).join(" "));
  const charts = {};
  for (const svg of document.querySelectorAll("#runs svg.chart.sweep")) {
    const lines = [...svg.querySelectorAll("path.line")].filter((p) => p.getBoundingClientRect().width > 0);
    charts[svg.dataset.node + "/" + svg.dataset.group] = lines.map((p) => p.dataset.label).sort();
  }
  return {runs, charts};
})()`

// TestReportComparesRunsInBrowser runs a sweep of three learning rates, the
// last of which fails, writes the report with -runs 3 and opens it in
// headless Chromium: the runs table labels the failed run failed and each
// run by its learning rate; the train and validation losses of all three
// runs share one chart, six drawn lines labelled by what differs, and the
// accuracy has its own.
func TestReportComparesRunsInBrowser(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "pipeline.hcl"), []byte(sweepPipeline), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, lr := range []string{"0.1", "0.2", "0.3"} {
		want := 0
		if lr == "0.3" {
			want = 1
		}
		if _, stderr, code := kilnRun(t, "apply", "-var", "lr="+lr, dir); code != want {
			t.Fatalf("kiln apply -var lr=%s: exit %d, want %d\n%s", lr, code, want, stderr)
		}
	}
	out := filepath.Join(dir, "report.html")
	if _, stderr, code := kilnRun(t, "report", "-runs", "3", "-smooth", "0.5", "-o", out, dir); code != 0 {
		t.Fatalf("kiln report -runs 3: exit %d\n%s", code, stderr)
	}
	b, err := browser.Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	p, err := b.Open(ctx, "file://"+out, 1280, 1600)
	if err != nil {
		t.Fatal(err)
	}
	var page sweepPage
	if err := p.Eval(ctx, readSweep, &page); err != nil {
		t.Fatal(err)
	}
	if errs := p.Errors(); len(errs) > 0 {
		t.Errorf("the report logged errors in the browser:\n%s", strings.Join(errs, "\n"))
	}
	want := sweepPage{
		Runs: []string{"1 complete lr=0.1", "2 complete lr=0.2", "3 failed lr=0.3"},
		Charts: map[string][]string{
			"exec.train/loss": {
				"lr=0.1 · train/loss", "lr=0.1 · val/loss", "lr=0.2 · train/loss",
				"lr=0.2 · val/loss", "lr=0.3 · train/loss", "lr=0.3 · val/loss",
			},
			"exec.train/acc": {"lr=0.1 · val/acc", "lr=0.2 · val/acc", "lr=0.3 · val/acc"},
		},
	}
	if diff := cmp.Diff(want, page); diff != "" {
		t.Errorf("the runs section in the browser (-want +got):\n%s", diff)
	}
}
