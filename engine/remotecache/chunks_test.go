package remotecache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/hash"
)

// bigContent is 2.5 chunks of bytes that differ from chunk to chunk.
func bigContent() string {
	var b strings.Builder
	for i := 0; b.Len() < 2*hash.ChunkSize+hash.ChunkSize/2; i++ {
		b.WriteString(strings.Repeat(string(rune('a'+i%26)), 4096))
	}
	return b.String()[:2*hash.ChunkSize+hash.ChunkSize/2]
}

// TestChunkedFileRoundTrip: a file larger than a chunk goes up as one blob
// per chunk, each stored under the SHA-256 of its own bytes (what a
// verifying server such as bazel-remote requires), and comes back whole,
// with the tree digest kiln computes for it; a dropped connection in the
// middle of the second chunk resumes inside that chunk.
func TestChunkedFileRoundTrip(t *testing.T) {
	srv := startNginx(t)
	big := bigContent()
	src := tree(t, map[string]string{"w.bin": big, "copy.bin": big, "small": "s"})
	rec := recordOf(t, key, src)
	up, err := newClient(t, srv.URL).Push(context.Background(), src, rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Transfer{Files: 3, Blobs: 4, Bytes: int64(len(big)) + 1}, up); diff != "" {
		t.Errorf("push (-want +got):\n%s", diff)
	}
	got, err := newClient(t, srv.URL).Lookup(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	w := got.Files[2]
	if w.Path != "w.bin" || len(w.Chunks) != 3 {
		t.Fatalf("record of w.bin: %+v; want 3 chunks", w)
	}
	for k, c := range w.Chunks {
		resp, err := http.Get(srv.URL + "/cas/" + c)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		s := sha256.Sum256(b)
		want := big[k*hash.ChunkSize : min((k+1)*hash.ChunkSize, len(big))]
		if hex.EncodeToString(s[:]) != c || string(b) != want {
			t.Errorf("blob of chunk %d: %d bytes with SHA-256 %x; want the chunk's %d bytes under their SHA-256", k+1, len(b), s[:6], len(want))
		}
	}
	var gets atomic.Int64
	p, u := startProxy(t, srv.URL, func(p *proxy, rw http.ResponseWriter, r *http.Request, next http.Handler) {
		if r.Method == http.MethodGet && r.URL.Path == "/cas/"+w.Chunks[1] && gets.Add(1) == 1 {
			cut(rw, r, next, 1000)
			return
		}
		next.ServeHTTP(rw, r)
	})
	c := newClient(t, u)
	c.Parallel = 1
	dst := t.TempDir()
	down, err := c.Fetch(context.Background(), got, dst, nil)
	if err != nil {
		t.Fatal(err)
	}
	if down.Blobs != 4 || down.Bytes != int64(len(big))+1 {
		t.Errorf("fetch moved %+v; want 4 blobs, the big file once and the small one", down)
	}
	want, _ := hash.Tree(src, nil)
	if have, err := hash.Tree(dst, nil); err != nil || have != want {
		t.Errorf("fetched tree %s (%v), pushed %s", have.Short(), err, want.Short())
	}
	resumed := "GET /cas/" + w.Chunks[1] + " bytes=1000-"
	found := false
	for _, r := range p.requests {
		found = found || r == resumed
	}
	if !found {
		t.Errorf("requests %q; want the second chunk resumed with %q", p.requests, resumed)
	}
	b, _ := os.ReadFile(filepath.Join(dst, "copy.bin"))
	if string(b) != big {
		t.Error("copy.bin differs from what was pushed")
	}
}

// TestChunkListChecked: a record whose chunk list does not give the file's
// digest, or lists chunks for a small file, is refused before any fetch.
func TestChunkListChecked(t *testing.T) {
	sum := func(s string) string { d := sha256.Sum256([]byte(s)); return hex.EncodeToString(d[:]) }
	chunks := []string{sum("a"), sum("b")}
	var ds []hash.Digest
	for _, c := range chunks {
		d, _ := hash.ParseDigest(c)
		ds = append(ds, d)
	}
	size := int64(hash.ChunkSize + 1)
	digest, err := hash.ChunkedDigest(size, ds)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		f    File
		want string
	}{
		{"good", File{Path: "f", Type: "f", Size: size, SHA256: digest.String(), Chunks: chunks}, ""},
		{"no list", File{Path: "f", Type: "f", Size: size, SHA256: digest.String()}, "chunks"},
		{"one chunk missing", File{Path: "f", Type: "f", Size: size, SHA256: digest.String(), Chunks: chunks[:1]}, "chunks"},
		{"other chunk", File{Path: "f", Type: "f", Size: size, SHA256: digest.String(), Chunks: []string{sum("a"), sum("c")}}, "give digest"},
		{"small file with chunks", File{Path: "f", Type: "f", Size: 1, SHA256: sum("a"), Chunks: chunks[:1]}, "no chunks"},
	}
	for _, tc := range cases {
		r := &Record{Format: Format, Key: key, Files: []File{tc.f}}
		if e, err := r.Entries(); err == nil {
			r.Tree = hash.EntriesDigest(e).String()
		}
		err := r.Check(key)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: Check = %v; want %q", tc.name, err, tc.want)
		}
	}
}
