package fetch

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A server that dies mid-body leaves the received bytes; the next run asks
// for the rest with Range and ends with the right file.
func TestDownloadResumesAfterCutConnection(t *testing.T) {
	content := payload(100_000)
	const cut = 40_000
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			w.Header().Set("ETag", `"v1"`)
			w.Header().Set("Content-Length", strconv.Itoa(len(content)))
			w.Write(content[:cut])
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		}
		serveContent(w, r, `"v1"`, content)
	})
	state := t.TempDir()
	url := srv.URL + "/big.bin"
	cfg := decode(t, fmt.Sprintf("url = %q\nchecksum = %q\n", url, sumOf(content)))

	first := newBuild(t, state, cfg)
	_, err := build(t, &Fetch{}, first)
	if err == nil {
		t.Fatal("first Build succeeded against a server that died mid-body")
	}
	contains(t, "error", err.Error(), url, "run again to resume")
	if fi, err := os.Stat(partialPath(state, url)); err != nil || fi.Size() != cut {
		t.Fatalf("partial download after the cut: %v, %v; want %d bytes", fi, err, cut)
	}

	second := newBuild(t, state, cfg)
	if _, err := build(t, &Fetch{}, second); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(second.Dir, "big.bin")); got != string(content) {
		t.Errorf("resumed file differs from the served one (%d bytes, want %d)", len(got), len(content))
	}
	if diff := cmp.Diff([]string{"", fmt.Sprintf("bytes=%d-", cut)}, srv.seenRanges()); diff != "" {
		t.Errorf("Range headers (-want +got):\n%s", diff)
	}
	contains(t, "log", logOf(second), "resuming at")
}

func TestDownloadRestartsWhenResumeIsRefused(t *testing.T) {
	content := payload(20_000)
	tests := []struct {
		name    string
		handler func(w http.ResponseWriter, r *http.Request, n int)
		log     string
	}{
		{
			name: "server ignores Range",
			handler: func(w http.ResponseWriter, r *http.Request, _ int) {
				w.Header().Set("Content-Length", strconv.Itoa(len(content)))
				w.Write(content)
			},
			log: "does not resume",
		},
		{
			name:    "remote content changed (If-Range fails)",
			handler: func(w http.ResponseWriter, r *http.Request, _ int) { serveContent(w, r, `"new"`, content) },
			log:     "does not resume",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, tt.handler)
			state := t.TempDir()
			url := srv.URL + "/f.bin"
			p := partialPath(state, url)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(p, []byte("stale bytes that must not survive"), 0o644)
			os.WriteFile(p+".validator", []byte(`"old"`), 0o644)
			b := newBuild(t, state, decode(t, fmt.Sprintf("url = %q\nchecksum = %q\n", url, sumOf(content))))

			if _, err := build(t, &Fetch{}, b); err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, filepath.Join(b.Dir, "f.bin")); got != string(content) {
				t.Errorf("f.bin differs from the served file (%d bytes, want %d)", len(got), len(content))
			}
			if r := srv.seenRanges(); len(r) != 1 || r[0] == "" {
				t.Errorf("requests' Range headers = %q, want one resume attempt", r)
			}
			contains(t, "log", logOf(b), tt.log)
		})
	}
}

// A partial file that already holds the whole body is complete (the server
// answers 416 to a range past its end).
func TestDownloadCompletePartial(t *testing.T) {
	content := payload(4096)
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) { serveContent(w, r, `"v1"`, content) })
	state := t.TempDir()
	url := srv.URL + "/done.bin"
	p := partialPath(state, url)
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, content, 0o644)
	os.WriteFile(p+".validator", []byte(`"v1"`), 0o644)
	b := newBuild(t, state, decode(t, fmt.Sprintf("url = %q\nchecksum = %q\n", url, sumOf(content))))

	if _, err := build(t, &Fetch{}, b); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(b.Dir, "done.bin")); got != string(content) {
		t.Error("done.bin differs from the served file")
	}
}

// Two builds of this process fetching the same URL take turns on its
// partial file and both end with the right file.
func TestDownloadSameURLConcurrently(t *testing.T) {
	content := payload(50_000)
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) { serveContent(w, r, `"v1"`, content) })
	state := t.TempDir()
	cfg := decode(t, fmt.Sprintf("url = %q\nchecksum = %q\n", srv.URL+"/shared.bin", sumOf(content)))
	builds := []*kindBuild{{b: newBuild(t, state, cfg)}, {b: newBuild(t, state, cfg)}}
	var wg sync.WaitGroup
	for _, kb := range builds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, kb.err = build(t, &Fetch{}, kb.b)
		}()
	}
	wg.Wait()
	for i, kb := range builds {
		if kb.err != nil {
			t.Fatalf("build %d: %v", i, kb.err)
		}
		if got := readFile(t, filepath.Join(kb.b.Dir, "shared.bin")); got != string(content) {
			t.Errorf("build %d: shared.bin differs from the served file", i)
		}
	}
}
