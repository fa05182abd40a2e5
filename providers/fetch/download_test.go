package fetch

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/zclconf/go-cty/cty"
)

func sumOf(b []byte) string {
	h := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(h[:])
}

func TestDownloadVerifiesAndPublishes(t *testing.T) {
	content := payload(5000)
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) { serveContent(w, r, `"v1"`, content) })
	state := t.TempDir()
	url := srv.URL + "/files/model.bin"
	b := newBuild(t, state, decode(t, fmt.Sprintf(`
url      = %q
checksum = %q
`, url, "sha256:"+strings.ToUpper(sumOf(content)[7:]))))

	res, err := build(t, &Fetch{}, b)
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(b.Dir, "model.bin")); got != string(content) {
		t.Errorf("model.bin holds %d bytes, want the %d served", len(got), len(content))
	}
	want := map[string]string{"checksum": sumOf(content)}
	if diff := cmp.Diff(want, res.Attrs); diff != "" {
		t.Errorf("attrs (-want +got):\n%s", diff)
	}
	if got := res.Exports["path"]; !got.RawEquals(cty.StringVal(filepath.Join(b.Out, "model.bin"))) {
		t.Errorf("path export = %#v", got)
	}
	if res.Digest != "" {
		t.Errorf("digest = %q, want empty (the engine hashes Dir)", res.Digest)
	}
	mustNotExist(t, partialPath(state, url))
	if strings.Contains(logOf(b), "WARNING") {
		t.Errorf("pinned download warns:\n%s", logOf(b))
	}
}

func TestDownloadChecksumMismatch(t *testing.T) {
	content := payload(3000)
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) { serveContent(w, r, "", content) })
	state := t.TempDir()
	url := srv.URL + "/data.bin"
	wrong := sumOf([]byte("something else"))
	b := newBuild(t, state, decode(t, fmt.Sprintf("url = %q\nchecksum = %q\n", url, wrong)))

	_, err := build(t, &Fetch{}, b)
	if err == nil {
		t.Fatal("Build succeeded with a wrong checksum")
	}
	contains(t, "error", err.Error(), "mismatch", wrong, sumOf(content), url)
	mustNotExist(t, partialPath(state, url))
	mustNotExist(t, filepath.Join(b.Dir, "data.bin"))
}

func TestDownloadWithoutChecksumRecordsIt(t *testing.T) {
	content := payload(1234)
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) { serveContent(w, r, "", content) })
	b := newBuild(t, t.TempDir(), decode(t, fmt.Sprintf("url = %q\nfilename = \"renamed.dat\"\n", srv.URL+"/x")))

	res, err := build(t, &Fetch{}, b)
	if err != nil {
		t.Fatal(err)
	}
	if res.Attrs["checksum"] != sumOf(content) {
		t.Errorf("recorded checksum %q, want %q", res.Attrs["checksum"], sumOf(content))
	}
	contains(t, "log", logOf(b), "WARNING", "NOT verified", `checksum = "`+sumOf(content)+`"`)
	if got := readFile(t, filepath.Join(b.Dir, "renamed.dat")); got != string(content) {
		t.Errorf("renamed.dat holds %d bytes, want %d", len(got), len(content))
	}
}

func TestDownloadStall(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		w.Header().Set("Content-Length", "1000")
		w.Write(payload(100))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(20 * time.Second):
		}
	})
	state := t.TempDir()
	url := srv.URL + "/slow.bin"
	b := newBuild(t, state, decode(t, fmt.Sprintf("url = %q\nstall_timeout = \"300ms\"\n", url)))

	_, err := build(t, &Fetch{}, b)
	if err == nil {
		t.Fatal("Build succeeded against a stalled server")
	}
	contains(t, "error", err.Error(), "stalled", "300ms", url)
	if fi, err := os.Stat(partialPath(state, url)); err != nil || fi.Size() != 100 {
		t.Errorf("partial download after the stall: %v, %v; want the 100 bytes received kept", fi, err)
	}
}

// No total timeout: a transfer longer than stall_timeout finishes as long as
// bytes keep arriving.
func TestDownloadSlowButSteady(t *testing.T) {
	content := payload(1200)
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		w.Header().Set("Content-Length", strconv.Itoa(len(content)))
		for i := 0; i < len(content); i += 100 {
			w.Write(content[i : i+100])
			w.(http.Flusher).Flush()
			time.Sleep(60 * time.Millisecond)
		}
	})
	var mu sync.Mutex
	var calls [][2]int64
	f := &Fetch{
		ProgressInterval: 50 * time.Millisecond,
		Progress: func(addr string, done, total int64) {
			mu.Lock()
			defer mu.Unlock()
			if addr != "fetch.x" {
				t.Errorf("progress for %q, want fetch.x", addr)
			}
			calls = append(calls, [2]int64{done, total})
		},
	}
	b := newBuild(t, t.TempDir(), decode(t, fmt.Sprintf("url = %q\nstall_timeout = \"300ms\"\nchecksum = %q\n", srv.URL+"/steady.bin", sumOf(content))))

	if _, err := build(t, f, b); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(b.Dir, "steady.bin")); got != string(content) {
		t.Error("steady.bin differs from the served file")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(calls) < 2 || calls[len(calls)-1] != [2]int64{1200, 1200} {
		t.Errorf("progress calls %v, want several ending at {1200 1200}", calls)
	}
	contains(t, "log", logOf(b), "steady.bin: 1.2 KiB / 1.2 KiB (100%)")
}

func TestDownloadMaxBytes(t *testing.T) {
	content := payload(10_000)
	tests := []struct {
		name    string
		handler func(w http.ResponseWriter, r *http.Request, n int)
	}{
		{"declared length", func(w http.ResponseWriter, r *http.Request, _ int) { serveContent(w, r, "", content) }},
		{"chunked", func(w http.ResponseWriter, r *http.Request, _ int) {
			for i := 0; i < len(content); i += 1000 {
				w.Write(content[i : i+1000])
				w.(http.Flusher).Flush()
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, tt.handler)
			state := t.TempDir()
			url := srv.URL + "/huge.bin"
			b := newBuild(t, state, decode(t, fmt.Sprintf("url = %q\nmax_bytes = 4096\n", url)))
			_, err := build(t, &Fetch{}, b)
			if err == nil {
				t.Fatal("Build succeeded past max_bytes")
			}
			contains(t, "error", err.Error(), "max_bytes = 4096", url)
			mustNotExist(t, partialPath(state, url))
			mustNotExist(t, filepath.Join(b.Dir, "huge.bin"))
		})
	}
}

func TestDownloadHTTPErrors(t *testing.T) {
	for _, code := range []int{http.StatusNotFound, http.StatusInternalServerError, http.StatusForbidden} {
		t.Run(strconv.Itoa(code), func(t *testing.T) {
			srv := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
				http.Error(w, "no", code)
			})
			url := srv.URL + "/missing.bin"
			b := newBuild(t, t.TempDir(), decode(t, fmt.Sprintf("url = %q\n", url)))
			_, err := build(t, &Fetch{}, b)
			if err == nil {
				t.Fatalf("Build succeeded on HTTP %d", code)
			}
			contains(t, "error", err.Error(), strconv.Itoa(code), url)
		})
	}
}

func TestDownloadSendsHeaders(t *testing.T) {
	content := []byte("private")
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		if r.Header.Get("X-Api-Key") != "k1" {
			http.Error(w, "missing key", http.StatusUnauthorized)
			return
		}
		serveContent(w, r, "", content)
	})
	b := newBuild(t, t.TempDir(), decode(t, fmt.Sprintf("url = %q\nchecksum = %q\nheaders = { \"X-Api-Key\" = \"k1\" }\n", srv.URL+"/p", sumOf(content))))
	if _, err := build(t, &Fetch{}, b); err != nil {
		t.Fatal(err)
	}
}
