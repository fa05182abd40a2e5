package main

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/internal/browser"
)

// reportPage is what the browser test reads from a rendered report.
type reportPage struct {
	Bars       int                       `json:"bars"`       // rect.bar in the timeline
	DrawnBars  int                       `json:"drawnBars"`  // of those, laid out with a width
	GraphNodes int                       `json:"graphNodes"` // nodes of the DAG
	Rows       int                       `json:"rows"`       // rows of the node table
	Points     map[string]map[string]int `json:"points"`     // node → metric → dots of this run
	Clicked    string                    `json:"clicked"`    // the location after clicking the DAG's first node
	Row        string                    `json:"row"`        // that row's node
}

const readReport = `(() => {
  const q = (s) => document.querySelectorAll(s);
  const points = {};
  for (const h of q("h3[id^=metrics-]")) {
    const node = h.querySelector("a").textContent;
    points[node] = {};
    for (const c of h.nextElementSibling.querySelectorAll("svg.chart")) {
      points[node][c.dataset.key] = c.querySelectorAll("circle.pt.run").length;
    }
  }
  const bars = [...q("svg.timeline rect.bar")];
  const link = document.querySelector("svg.dag a");
  link.dispatchEvent(new MouseEvent("click", {bubbles: true, cancelable: true, view: window}));
  const row = document.querySelector(location.hash);
  return {
    bars: bars.length,
    drawnBars: bars.filter((b) => b.getBoundingClientRect().width > 0).length,
    graphNodes: q("svg.dag g.dnode").length,
    rows: q("table.nodes tbody tr").length,
    points: points,
    clicked: location.hash,
    row: row ? row.querySelector(".addr").textContent : "",
  };
})()`

// openReport opens an HTML report in headless Chromium, fails the test on
// any console error, and returns what the page shows and a screenshot of
// its first width × height pixels.
func openReport(t *testing.T, path string, width, height int) (reportPage, []byte) {
	t.Helper()
	b, err := browser.Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := b.Open(ctx, "file://"+abs, width, height)
	if err != nil {
		t.Fatal(err)
	}
	shot, err := p.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var page reportPage
	if err := p.Eval(ctx, readReport, &page); err != nil {
		t.Fatal(err)
	}
	if errs := p.Errors(); len(errs) > 0 {
		t.Errorf("the report logged errors in the browser:\n%s", strings.Join(errs, "\n"))
	}
	return page, shot
}

// checkScreenshot compares a screenshot loosely with the golden one: the
// same size, not blank, and about as much drawn on it (fonts differ between
// machines, so pixels are not compared). With -update it replaces the
// golden file.
func checkScreenshot(t *testing.T, shot []byte, golden string) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	ink, colours := inkOf(img)
	if ink < 0.03 || colours < 16 {
		t.Errorf("the screenshot looks blank: %.1f%% of its pixels drawn, %d colours", ink*100, colours)
	}
	if retoolUpdate() {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, shot, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Open(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to write it)", err, t.Name())
	}
	defer f.Close()
	want, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", golden, err)
	}
	if want.Bounds().Size() != img.Bounds().Size() {
		t.Errorf("screenshot is %v, the golden %s is %v", img.Bounds().Size(), golden, want.Bounds().Size())
	}
	if wantInk, _ := inkOf(want); ink < wantInk/2 || ink > wantInk*2 {
		t.Errorf("the screenshot has %.1f%% of its pixels drawn, the golden %s %.1f%%: the layout changed (if intended, run with -update)", ink*100, golden, wantInk*100)
	}
	t.Logf("screenshot: %v, %.1f%% drawn, %d colours; written with -update to %s", img.Bounds().Size(), ink*100, colours, golden)
	if dir := os.Getenv("KILN_TEST_SCREENSHOTS"); dir != "" {
		_ = os.WriteFile(filepath.Join(dir, filepath.Base(golden)), shot, 0o644)
	}
}

// inkOf returns the share of pixels that are not near-white and the number
// of distinct colours (up to 1,000).
func inkOf(img image.Image) (float64, int) {
	b := img.Bounds()
	drawn := 0
	colours := map[uint32]bool{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				drawn++
			}
			if len(colours) < 1000 {
				colours[r>>8<<16|g>>8<<8|bl>>8] = true
			}
		}
	}
	return float64(drawn) / float64(b.Dx()*b.Dy()), len(colours)
}

// TestReportInBrowser applies a pipeline whose nodes log metrics in all
// three ways kiln reads them, hold NPUs, fail and are skipped, writes its
// HTML report and opens it in headless Chromium: no console errors, one
// timeline bar, graph node and table row per node, one dot per logged step
// on every curve, the graph's nodes link to their rows, and the screenshot
// is not blank.
func TestReportInBrowser(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, filepath.Join("testdata", "report"), dir)
	if _, stderr, code := kilnRun(t, "apply", "-resource", "npu=2", dir); code != 1 || !strings.Contains(stderr, "") {
		t.Fatalf("kiln apply: exit %d, want 1 (exec.broken fails)", code)
	}
	out := filepath.Join(dir, "out", "report.html")
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := kilnRun(t, "report", "-o", out, dir)
	if code != 0 {
		t.Fatalf("kiln report: exit %d\n%s", code, stderr)
	}
	// A run whose nodes failed is labelled failed, never complete.
	if want := "Wrote " + out + ": run 1 (failed, 6 nodes).\n"; stdout != want {
		t.Errorf("kiln report printed %q, want %q", stdout, want)
	}
	html, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), `<span class="status failed">failed</span>`) {
		t.Errorf("the report's badge does not say the run failed")
	}
	// Log links are relative to the report's folder and lead to the logs.
	if !regexp.MustCompile(`<a href="\.\./\.kiln/logs/exec\.train/[0-9T.]+Z-[0-9a-f]{12}\.log">log</a>`).Match(html) {
		t.Errorf("the report does not link exec.train's log of this run relative to its folder")
	}
	page, shot := openReport(t, out, 1280, 1600)
	want := reportPage{
		Bars: 6, DrawnBars: 6, GraphNodes: 6, Rows: 6,
		Points: map[string]map[string]int{
			"exec.train":    {"critic/score/mean": 6, "actor/entropy": 6, "perf/throughput": 6},
			"exec.evaluate": {"eval/acc": 3, "eval/f1": 3},
			"exec.custom":   {"loss": 5},
		},
		Clicked: page.Clicked, Row: page.Row,
	}
	if diff := cmp.Diff(want, page); diff != "" {
		t.Errorf("the page in the browser (-want +got):\n%s", diff)
	}
	if !strings.HasPrefix(page.Clicked, "#node-") || page.Row == "" {
		t.Errorf("clicking the graph's first node went to %q (row %q), want a node's row", page.Clicked, page.Row)
	}
	checkScreenshot(t, shot, filepath.Join("testdata", "report", "report.golden.png"))
}

// checkRetoolReport renders the report of examples/retool-mini's first
// apply and opens it in Chromium: every node on the timeline, in the graph
// and in the table, and both trainers' verl metrics as curves of four
// steps. With -update its screenshot becomes docs/report.png, which the
// README shows.
func checkRetoolReport(t *testing.T, dir string) {
	t.Helper()
	out := filepath.Join(dir, "r.html")
	if _, stderr, code := kilnRun(t, "report", "-o", out, dir); code != 0 {
		t.Fatalf("kiln report: exit %d\n%s", code, stderr)
	}
	page, shot := openReport(t, out, 1280, 2000)
	steps := func(keys ...string) map[string]int {
		m := map[string]int{}
		for _, k := range keys {
			m[k] = 4
		}
		return m
	}
	want := reportPage{
		Bars: 14, DrawnBars: 14, GraphNodes: 14, Rows: 14,
		Points: map[string]map[string]int{
			"exec.sft_train": steps("train/loss", "train/lr(1e-3)", "train/grad_norm", "train/tokens"),
			"exec.rl_train": steps("training/global_step", "critic/score/mean", "critic/score/max", "critic/score/min",
				"response_length/mean", "num_turns/mean", "actor/entropy", "actor/pg_loss"),
		},
		Clicked: page.Clicked, Row: page.Row,
	}
	if diff := cmp.Diff(want, page); diff != "" {
		t.Errorf("retool-mini's report in the browser (-want +got):\n%s", diff)
	}
	checkScreenshot(t, shot, filepath.Join("..", "..", "docs", "report.png"))
}
