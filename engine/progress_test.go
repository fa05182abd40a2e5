package engine_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/kilnbuild/kiln/engine"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/run"
	"github.com/kilnbuild/kiln/providers"
)

// byteHooks records the transfers an apply reports (run.ByteCounter).
type byteHooks struct {
	run.NoHooks
	mu    sync.Mutex
	bytes map[string]int64 // the last count per address
}

func (h *byteHooks) Bytes(a string, done, total int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.bytes[a] = done
}

// A download's progress reaches the apply's hooks without the caller
// knowing which kind downloads: the engine hands it to every kind that
// reports progress (kind.ProgressReporter).
func TestApplyReportsDownloadProgress(t *testing.T) {
	body := make([]byte, 300<<10)
	for i := range body {
		body[i] = byte(i)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) }))
	defer srv.Close()
	sum := sha256.Sum256(body)
	dir := t.TempDir()
	src := fmt.Sprintf("fetch \"blob\" {\n  url = %q\n  checksum = \"sha256:%s\"\n}\n", srv.URL+"/blob.bin", hex.EncodeToString(sum[:]))
	if err := os.WriteFile(filepath.Join(dir, "pipeline.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	w, diags, err := engine.Open(engine.Options{Path: dir, Kinds: providers.All()})
	if err != nil || diags.HasErrors() {
		t.Fatalf("open: %v %s", err, diags)
	}
	h := &byteHooks{bytes: map[string]int64{}}
	res, err := w.Apply(context.Background(), engine.ApplyOptions{Parallelism: 1, Hooks: h})
	if err != nil || res.Failed() {
		t.Fatalf("apply: %v %+v", err, res)
	}
	a := addr.Node{Kind: "fetch", Name: "blob"}
	if got := h.bytes[a.String()]; got != int64(len(body)) {
		t.Errorf("the hooks heard %d bytes of fetch.blob, want %d (all: %v)", got, len(body), h.bytes)
	}
}
