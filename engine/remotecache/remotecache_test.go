package remotecache

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/remotecache/nginxtest"
)

func startNginx(t *testing.T) *nginxtest.Server {
	t.Helper()
	s, err := nginxtest.Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Stop() })
	return s
}

// tree writes files (path -> content; a trailing "/" makes a folder, a
// value starting with "->" a symlink, a path starting with "*" an
// executable) and returns the folder.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		mode := os.FileMode(0o644)
		if strings.HasPrefix(p, "*") {
			p, mode = p[1:], 0o755
		}
		full := filepath.Join(dir, p)
		switch {
		case strings.HasSuffix(p, "/"):
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if target, ok := strings.CutPrefix(c, "->"); ok {
			if err := os.Symlink(target, full); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(full, []byte(c), mode); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func recordOf(t *testing.T, key, dir string) *Record {
	t.Helper()
	entries, err := hash.Manifest(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := hash.EntriesDigest(entries)
	return &Record{Format: Format, Key: key, Digest: d.String(), Tree: d.String(), Kind: "exec", Addr: "exec.a", Deterministic: true, Files: FilesOf(entries)}
}

var sample = map[string]string{
	"README":          "hello\n",
	"*bin/run":        "#!/bin/sh\necho run\n",
	"data/a.bin":      strings.Repeat("abcdefgh", 100000),
	"data/copy.bin":   strings.Repeat("abcdefgh", 100000), // the same blob twice
	"data/empty":      "",
	"empty-folder/":   "",
	"link":            "->README",
	"data/sub/b.txt":  "b",
	"data/sub/c.txt":  "c",
	"data/sub/d.json": "{}",
}

const key = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func newClient(t *testing.T, u string) *Client {
	t.Helper()
	c, err := New(u, Auth{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestPushLookupFetch(t *testing.T) {
	srv := startNginx(t)
	c := newClient(t, srv.URL)
	src := tree(t, sample)
	rec := recordOf(t, key, src)
	ctx := context.Background()

	if _, err := c.Lookup(ctx, key); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Lookup before push: %v, want ErrNotFound", err)
	}
	var mu sync.Mutex
	most := int64(0)
	up0 := int64(len(sample["data/a.bin"]) + 6 + 18 + 3 + 2)
	progress := func(done, total int64) {
		mu.Lock()
		if total != up0 {
			t.Errorf("push total %d, want %d", total, up0)
		}
		most = max(most, done)
		mu.Unlock()
	}
	up, err := c.Push(ctx, src, rec, progress)
	if err != nil {
		t.Fatal(err)
	}
	// Eight files, one of them empty and one a copy: six blobs go up.
	if diff := cmp.Diff(Transfer{Files: 8, Blobs: 6, Bytes: int64(len(sample["data/a.bin"]) + 6 + 18 + 3 + 2)}, up); diff != "" {
		t.Errorf("first push (-want +got):\n%s", diff)
	}
	if most != up.Bytes {
		t.Errorf("the push reported %d bytes done at most, want all %d", most, up.Bytes)
	}
	most = 0
	again, err := c.Push(ctx, src, rec, progress)
	if err != nil {
		t.Fatal(err)
	}
	if most != up.Bytes {
		t.Errorf("a push of blobs the server has reported %d bytes done at most, want all %d", most, up.Bytes)
	}
	if diff := cmp.Diff(Transfer{Files: 8, Skipped: 6}, again); diff != "" {
		t.Errorf("second push sends blobs the server has (-want +got):\n%s", diff)
	}

	got, err := c.Lookup(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(rec.Files, got.Files); diff != "" {
		t.Errorf("looked-up record (-pushed +got):\n%s", diff)
	}
	dst := t.TempDir()
	var last atomic.Int64
	down, err := c.Fetch(ctx, got, dst, func(n int64) { last.Store(n) })
	if err != nil {
		t.Fatal(err)
	}
	if down.Files != 8 || down.Blobs != 6 || down.Bytes != up.Bytes {
		t.Errorf("fetch moved %+v, want 8 files from the 6 blobs pushed (the copy is made locally)", down)
	}
	want, _ := hash.Tree(src, nil)
	have, err := hash.Tree(dst, nil)
	if err != nil {
		t.Fatal(err)
	}
	if have != want {
		t.Errorf("fetched tree %s, pushed %s", have.Short(), want.Short())
	}
	if fi, err := os.Stat(filepath.Join(dst, "bin/run")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("bin/run: %v %v, want mode 0755", fi, err)
	}
	if last.Load() != down.Bytes {
		t.Errorf("progress ended at %d, fetched %d bytes", last.Load(), down.Bytes)
	}
}

func TestCorruptBlobsAreRefused(t *testing.T) {
	srv := startNginx(t)
	c := newClient(t, srv.URL)
	src := tree(t, map[string]string{"weights.bin": strings.Repeat("w", 4096), "config.json": "{}"})
	rec := recordOf(t, key, src)
	if _, err := c.Push(context.Background(), src, rec, nil); err != nil {
		t.Fatal(err)
	}
	blob := srv.BlobPath(hash.Bytes([]byte(strings.Repeat("w", 4096))).String())
	cases := []struct {
		name    string
		content string
		reason  string
	}{
		{"flipped byte", strings.Repeat("w", 4095) + "x", "have SHA-256"},
		{"truncated", strings.Repeat("w", 100), "truncated: 100 of 4096 bytes"},
		{"too long", strings.Repeat("w", 5000), "longer than the recorded 4096 bytes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(blob, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := c.Fetch(context.Background(), rec, t.TempDir(), nil)
			var ce *CorruptError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.reason) || ce.Path != "weights.bin" {
				t.Fatalf("Fetch: %v, want a *CorruptError of weights.bin saying %q", err, tc.reason)
			}
		})
	}
	t.Run("missing", func(t *testing.T) {
		os.Remove(blob)
		_, err := c.Fetch(context.Background(), rec, t.TempDir(), nil)
		var ce *CorruptError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), "missing (404)") {
			t.Fatalf("Fetch: %v, want a *CorruptError saying missing", err)
		}
	})
}

func TestUnreachable(t *testing.T) {
	srv := startNginx(t)
	c := newClient(t, srv.URL)
	srv.Stop()
	_, err := c.Lookup(context.Background(), key)
	var ue *UnreachableError
	if !errors.As(err, &ue) {
		t.Fatalf("Lookup with the server down: %v, want *UnreachableError", err)
	}
	src := tree(t, map[string]string{"a": "a"})
	if _, err := c.Push(context.Background(), src, recordOf(t, key, src), nil); !errors.As(err, &ue) {
		t.Fatalf("Push with the server down: %v, want *UnreachableError", err)
	}
}

// proxy puts a Go reverse proxy in front of nginx; hook may change each
// request and response.
type proxy struct {
	mu       sync.Mutex
	requests []string // "METHOD PATH RANGE"
	active   atomic.Int64
	peak     atomic.Int64
}

func startProxy(t *testing.T, target string, wrap func(p *proxy, w http.ResponseWriter, r *http.Request, next http.Handler)) (*proxy, string) {
	t.Helper()
	u, _ := url.Parse(target)
	rp := httputil.NewSingleHostReverseProxy(u)
	p := &proxy{}
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := p.active.Add(1)
		defer p.active.Add(-1)
		for {
			peak := p.peak.Load()
			if n <= peak || p.peak.CompareAndSwap(peak, n) {
				break
			}
		}
		p.mu.Lock()
		p.requests = append(p.requests, r.Method+" "+r.URL.Path+" "+r.Header.Get("Range"))
		p.mu.Unlock()
		if wrap != nil {
			wrap(p, w, r, rp)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return p, s.URL
}

// cut sends the first n bytes of the upstream response and closes the
// connection. The close is an orderly one: a reset could discard bytes still
// in the client's receive buffer, and the resumed request would then start
// at an offset that depends on timing.
func cut(w http.ResponseWriter, r *http.Request, next http.Handler, n int) {
	rec := httptest.NewRecorder()
	next.ServeHTTP(rec, r)
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	w.Write(rec.Body.Bytes()[:n])
	w.(http.Flusher).Flush()
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		conn.Close()
	}
}

func TestDroppedConnectionResumes(t *testing.T) {
	srv := startNginx(t)
	content := strings.Repeat("0123456789", 50000)
	src := tree(t, map[string]string{"big": content})
	rec := recordOf(t, key, src)
	if _, err := newClient(t, srv.URL).Push(context.Background(), src, rec, nil); err != nil {
		t.Fatal(err)
	}
	for _, ignoreRange := range []bool{false, true} {
		var gets atomic.Int64
		p, u := startProxy(t, srv.URL, func(p *proxy, w http.ResponseWriter, r *http.Request, next http.Handler) {
			if r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/cas/") {
				if gets.Add(1) == 1 {
					cut(w, r, next, 123456)
					return
				}
				if ignoreRange {
					r.Header.Del("Range")
				}
			}
			next.ServeHTTP(w, r)
		})
		dst := t.TempDir()
		if _, err := newClient(t, u).Fetch(context.Background(), rec, dst, nil); err != nil {
			t.Fatalf("ignoreRange=%v: %v", ignoreRange, err)
		}
		b, _ := os.ReadFile(filepath.Join(dst, "big"))
		if string(b) != content {
			t.Fatalf("ignoreRange=%v: fetched %d bytes that differ from the %d pushed", ignoreRange, len(b), len(content))
		}
		blob := "/cas/" + rec.Files[0].SHA256
		want := []string{"GET " + blob + " ", "GET " + blob + " bytes=123456-"}
		if diff := cmp.Diff(want, p.requests); diff != "" {
			t.Errorf("ignoreRange=%v: requests (-want +got):\n%s", ignoreRange, diff)
		}
	}
}

func TestParallelIsBounded(t *testing.T) {
	srv := startNginx(t)
	files := map[string]string{}
	for i := range 40 {
		files[filepath.Join("f", string(rune('a'+i%26))+strings.Repeat("x", i))] = strings.Repeat(string(rune('a'+i%26)), 20000+i)
	}
	src := tree(t, files)
	rec := recordOf(t, key, src)
	p, u := startProxy(t, srv.URL, nil)
	c := newClient(t, u)
	c.Parallel = 3
	if _, err := c.Push(context.Background(), src, rec, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Fetch(context.Background(), rec, t.TempDir(), nil); err != nil {
		t.Fatal(err)
	}
	if peak := p.peak.Load(); peak > 3 || peak < 2 {
		t.Errorf("peak concurrent requests %d, want 2 or 3 with Parallel = 3", peak)
	}
}

func TestCredentials(t *testing.T) {
	srv := startNginx(t)
	var seen []string
	var mu sync.Mutex
	_, u := startProxy(t, srv.URL, func(p *proxy, w http.ResponseWriter, r *http.Request, next http.Handler) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"))
		mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
	c, err := New(u, Auth{Token: "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Lookup(context.Background(), key); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Lookup with the token: %v, want ErrNotFound", err)
	}
	if _, err := newClient(t, u).Lookup(context.Background(), key); err == nil || !strings.Contains(err.Error(), "401") || !strings.Contains(err.Error(), "KILN_CACHE_TOKEN") {
		t.Fatalf("Lookup without the token: %v, want a 401 naming KILN_CACHE_TOKEN", err)
	}
	if _, err := New("http://user:pw@127.0.0.1:1", Auth{}); err == nil || strings.Contains(err.Error(), "pw") {
		t.Fatalf("New with credentials in the url: %v, want an error that does not print them", err)
	}
	if len(seen) != 2 || seen[0] != "Bearer s3cret" || seen[1] != "" {
		t.Errorf("Authorization headers sent: %q", seen)
	}
}

func TestRecordCheck(t *testing.T) {
	good := func() *Record {
		return &Record{Format: Format, Key: key, Files: []File{
			{Path: "a", Type: "d"},
			{Path: "a/f", Type: "f", Size: 1, SHA256: hash.Bytes([]byte("x")).String()},
			{Path: "l", Type: "l", Target: "a"},
		}}
	}
	withTree := func(r *Record) *Record {
		e, err := r.Entries()
		if err == nil {
			r.Tree = hash.EntriesDigest(e).String()
		}
		return r
	}
	cases := []struct {
		name   string
		change func(r *Record)
		want   string
	}{
		{"good", func(r *Record) {}, ""},
		{"other key", func(r *Record) { r.Key = strings.Repeat("f", 64) }, "names key"},
		{"other format", func(r *Record) { r.Format = "x" }, "record format"},
		{"dot dot", func(r *Record) { r.Files[1].Path = "a/../../f" }, "not a clean relative path"},
		{"absolute", func(r *Record) { r.Files[1].Path = "/etc/passwd" }, "not a clean relative path"},
		{"below a symlink", func(r *Record) {
			r.Files = append(r.Files, File{Path: "l/x", Type: "f", SHA256: hash.Bytes(nil).String()})
		}, "not a folder"},
		{"below a file", func(r *Record) { r.Files = append(r.Files[:2], File{Path: "a/f/x", Type: "d"}, r.Files[2]) }, "not a folder"},
		{"unsorted", func(r *Record) { r.Files[0], r.Files[2] = r.Files[2], r.Files[0] }, "not sorted"},
		{"bad digest", func(r *Record) { r.Files[1].SHA256 = "zz" }, "parse digest"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := withTree(good())
			tc.change(r)
			r = withTree(r)
			err := r.Check(key)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("Check: %v, want %q", err, tc.want)
			}
		})
	}
	t.Run("tree digest", func(t *testing.T) {
		r := withTree(good())
		r.Files[1].Exec = true
		if err := r.Check(key); err == nil || !strings.Contains(err.Error(), "tree digest") {
			t.Errorf("Check after a change the tree digest does not cover: %v", err)
		}
	})
}
