package peers

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	getter "github.com/hashicorp/go-getter/v2"
)

// content is what the test servers serve.
var content = bytes.Repeat([]byte("0123456789abcdef"), 4096) // 64 KiB

// ignoresRange answers HEAD as a server that takes ranges, and every GET
// with the whole file (200), as a server or proxy that drops Range does.
func ignoresRange(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Accept-Ranges", "bytes")
	w.Header().Set("Content-Length", strconv.Itoa(len(content)))
	if r.Method == http.MethodGet {
		w.Write(content)
	}
}

func fileClient(g *getter.HttpGetter) *getter.Client {
	return &getter.Client{Getters: []getter.Getter{g}}
}

// TestGoGetterAppendsA200ToThePartialFile: resuming a partial download
// from a server that answers the Range request with 200 and the whole
// file, go-getter appends it to the partial bytes: the file is corrupt and
// no error says so. kiln starts over (providers/fetch
// TestDownloadRestartsWhenResumeIsRefused).
func TestGoGetterAppendsA200ToThePartialFile(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(ignoresRange))
	defer srv.Close()
	dst := filepath.Join(t.TempDir(), "blob.bin")
	if err := os.WriteFile(dst, content[:1000], 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := fileClient(&getter.HttpGetter{}).Get(context.Background(), &getter.Request{Src: srv.URL + "/blob.bin", Dst: dst, GetMode: getter.ModeFile})
	got, _ := os.ReadFile(dst)
	if err != nil || bytes.Equal(got, content) {
		t.Fatalf("go-getter left %d bytes (want %d) with error %v: it no longer appends a 200 answer to the partial file", len(got), len(content), err)
	}
	t.Logf("the partial 1000 bytes plus the 200 answer: %d bytes, no error", len(got))
}

// quietProgress is a go-getter progress listener that shows nothing.
type quietProgress struct{}

func (quietProgress) TrackProgress(_ string, _, _ int64, r io.ReadCloser) io.ReadCloser { return r }

// TestGoGetterDropsMaxBytesWithAProgressListener: with a progress listener
// set, go-getter wraps the raw response body and the MaxBytes limit is
// gone: a download ten times the limit succeeds. kiln's limit holds while
// its live status counts the bytes (providers/fetch TestDownloadMaxBytes).
func TestGoGetterDropsMaxBytesWithAProgressListener(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(ignoresRange))
	defer srv.Close()
	limit := int64(len(content) / 10)
	get := func(progress getter.ProgressTracker) (int, error) {
		dst := filepath.Join(t.TempDir(), "blob.bin")
		_, err := fileClient(&getter.HttpGetter{MaxBytes: limit}).Get(context.Background(), &getter.Request{Src: srv.URL + "/blob.bin", Dst: dst, GetMode: getter.ModeFile, ProgressListener: progress})
		got, _ := os.ReadFile(dst)
		return len(got), err
	}
	if n, err := get(nil); err == nil {
		t.Fatalf("without a listener, MaxBytes = %d let %d bytes through", limit, n)
	}
	n, err := get(quietProgress{})
	if err != nil || n <= int(limit) {
		t.Fatalf("with a listener, go-getter kept MaxBytes (%d bytes, %v): it no longer drops the limit", n, err)
	}
	t.Logf("MaxBytes %d, with a progress listener: %d bytes written, no error", limit, n)
}

// TestGoGetterTimesTheWholeTransfer: ReadTimeout (30s in go-getter's
// default client) bounds the whole transfer, not a silence: a server that
// sends a little every 100ms fails a transfer that takes longer than the
// timeout. kiln ends a transfer only after stall_timeout without a byte
// (providers/fetch TestDownloadSlowButSteady and TestDownloadStall).
func TestGoGetterTimesTheWholeTransfer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "2000")
		if r.Method != http.MethodGet {
			return
		}
		for range 20 {
			w.Write(bytes.Repeat([]byte("x"), 100))
			w.(http.Flusher).Flush()
			time.Sleep(100 * time.Millisecond)
		}
	}))
	defer srv.Close()
	dst := filepath.Join(t.TempDir(), "blob.bin")
	_, err := fileClient(&getter.HttpGetter{ReadTimeout: time.Second}).Get(context.Background(), &getter.Request{Src: srv.URL + "/blob.bin", Dst: dst, GetMode: getter.ModeFile})
	if err == nil {
		t.Fatal("a steady 2s transfer passed a 1s ReadTimeout: go-getter's timeout is no longer a total one")
	}
	t.Logf("a transfer that never paused for more than 100ms: %v", err)
}

// TestGoGetterTarTurnsSymlinksIntoEmptyFiles: go-getter's tar decompressor
// writes a symlink entry as an empty regular file and unpacks an absolute
// entry name below the destination instead of refusing it. kiln keeps the
// link (checked against escaping the output folder) and refuses absolute
// names (providers/fetch TestExtractFormats, TestExtractRefusesEscapes).
func TestGoGetterTarTurnsSymlinksIntoEmptyFiles(t *testing.T) {
	dir := t.TempDir()
	archive := filepath.Join(dir, "a.tar")
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, h := range []*tar.Header{
		{Name: "data.txt", Mode: 0o644, Size: 5, Typeflag: tar.TypeReg},
		{Name: "link", Linkname: "data.txt", Typeflag: tar.TypeSymlink},
		{Name: "/abs.txt", Mode: 0o644, Size: 5, Typeflag: tar.TypeReg},
	} {
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Size > 0 {
			tw.Write([]byte("hello"))
		}
	}
	tw.Close()
	if err := os.WriteFile(archive, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if err := new(getter.TarDecompressor).Decompress(out, archive, true, 0); err != nil {
		t.Fatalf("go-getter refused the archive (%v): it may now refuse absolute names", err)
	}
	fi, err := os.Lstat(filepath.Join(out, "link"))
	if err != nil || fi.Mode()&os.ModeSymlink != 0 || fi.Size() != 0 {
		t.Fatalf("the symlink entry became %v (%v): go-getter no longer turns links into empty files", fi.Mode(), err)
	}
	if _, err := os.Stat(filepath.Join(out, "abs.txt")); err != nil {
		t.Fatalf("the absolute entry /abs.txt was not unpacked below the destination: %v", err)
	}
}
