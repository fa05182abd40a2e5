package lockfile_test

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kilnbuild/kiln/engine/lockfile"
)

// fileServer serves one file whose content a test may change.
type fileServer struct {
	mu   sync.Mutex
	body string
	srv  *httptest.Server
}

func newFileServer(t *testing.T, body string) *fileServer {
	f := &fileServer{body: body}
	f.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		_, _ = w.Write([]byte(f.body))
	}))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f.srv.Listener = l
	f.srv.Start()
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fileServer) set(body string) {
	f.mu.Lock()
	f.body = body
	f.mu.Unlock()
}

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(h[:])
}

// TestFetchChecksumPin: the checksum a download first had is locked; a
// download that later differs fails naming expected and got and the command
// that accepts it, and after kiln lock -update the next apply records the
// new checksum.
func TestFetchChecksumPin(t *testing.T) {
	srv := newFileServer(t, "weights v1")
	url := srv.srv.URL + "/w.bin"
	dir := pipelineDir(t, `
fetch "w" {
  url = "`+url+`"
}
`)
	res := lockPins(t, dir)
	if len(res) != 1 || res[0].Status != lockfile.NeedsBuild || !strings.Contains(res[0].Err.Error(), "only once it is downloaded") {
		t.Fatalf("kiln lock before any download = %+v, want a note that it needs a build", res)
	}

	mustApply(t, dir)
	want := map[string]string{"checksum": sha("weights v1"), "url": url}
	if got := lock(t, dir).Pins["fetch.w"]; !maps.Equal(got, want) {
		t.Fatalf("pin after the first download = %v, want %v", got, want)
	}
	if got := actions(t, dir); got["fetch.w"] != " " {
		t.Fatalf("plan after the first download = %v, want nothing to do (the pin must not change the key)", got)
	}

	srv.set("weights v2")
	before := readFile(t, lockfile.Path(dir))
	err := apply(t, dir, "fetch.w")
	if err == nil {
		t.Fatal("a download that changed since it was locked was accepted")
	}
	for _, s := range []string{"expected " + sha("weights v1"), "got " + sha("weights v2"), "changed since it was locked", "kiln lock -update fetch.w"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not say %q", err, s)
		}
	}
	if after := readFile(t, lockfile.Path(dir)); after != before {
		t.Errorf("a failed download changed the lock:\n%s", after)
	}
	if got := readFile(t, filepath.Join(dir, ".kiln/out/fetch.w/w.bin")); got != "weights v1" {
		t.Errorf("the locked result was replaced by %q", got)
	}

	res = lockPins(t, dir, "fetch.w")
	if len(res) != 1 || res[0].Status != lockfile.NeedsBuild {
		t.Fatalf("kiln lock -update fetch.w = %+v, want the pin dropped for the next build", res)
	}
	if _, ok := lock(t, dir).Pins["fetch.w"]; ok {
		t.Fatal("kiln lock -update kept the checksum pin")
	}
	mustApply(t, dir)
	if got := lock(t, dir).Pins["fetch.w"]["checksum"]; got != sha("weights v2") {
		t.Errorf("pin after accepting the change = %s, want %s", got, sha("weights v2"))
	}
	if got := readFile(t, filepath.Join(dir, ".kiln/out/fetch.w/w.bin")); got != "weights v2" {
		t.Errorf("after accepting the change the file holds %q", got)
	}
}
