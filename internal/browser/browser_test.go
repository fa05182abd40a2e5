package browser

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPageReportsErrorsAndRenders opens a page that draws two SVG shapes and
// then throws: the page's DOM is readable, the uncaught exception and the
// console error are reported, and the screenshot has the viewport's size.
func TestPageReportsErrorsAndRenders(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "page.html")
	html := `<!doctype html><html><body style="margin:0;background:#fff">
<svg width="200" height="100"><rect class="bar" width="100" height="50" fill="#1d4ed8"/><rect class="bar" x="100" width="100" height="50" fill="#2e7d32"/></svg>
<script>console.error("broken", 42); undefinedFunction();</script></body></html>`
	if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := Start(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p, err := b.Open(ctx, "file://"+page, 320, 200)
	if err != nil {
		t.Fatal(err)
	}
	var bars int
	if err := p.Eval(ctx, `document.querySelectorAll("rect.bar").length`, &bars); err != nil {
		t.Fatal(err)
	}
	if bars != 2 {
		t.Errorf("page has %d bars, want 2", bars)
	}
	errs := p.Errors()
	if len(errs) != 2 || errs[0] != "console.error: broken 42" || !strings.HasPrefix(errs[1], "uncaught exception at line 3: Uncaught ReferenceError: undefinedFunction is not defined") {
		t.Errorf("the page reported %q, want the console error and the uncaught ReferenceError at line 3", errs)
	}
	shot, err := p.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	if got := img.Bounds().Size(); got.X != 320 || got.Y != 200 {
		t.Errorf("screenshot is %v, want 320x200", got)
	}
	r, g, bl, _ := img.At(50, 25).RGBA()
	if r>>8 != 0x1d || g>>8 != 0x4e || bl>>8 != 0xd8 {
		t.Errorf("pixel (50,25) is %02x%02x%02x, want the first bar's 1d4ed8", r>>8, g>>8, bl>>8)
	}
}
