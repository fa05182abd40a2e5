package fetch

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/zclconf/go-cty/cty"
)

// decode reads the body of a fetch block with the kind's Spec.
func decode(t *testing.T, body string) cty.Value {
	t.Helper()
	file, diags := hclsyntax.ParseConfig([]byte(body), "test.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("parse: %s", diags)
	}
	v, diags := hcldec.Decode(file.Body, New().Spec(), nil)
	if diags.HasErrors() {
		t.Fatalf("decode: %s", diags)
	}
	return v
}

// newBuild is a build of fetch.x with a fresh output folder, sharing state.
func newBuild(t *testing.T, state string, cfg cty.Value) *kind.Build {
	t.Helper()
	return &kind.Build{
		Node: kind.Node{
			Addr:   addr.Node{Kind: "fetch", Name: "x"},
			Config: cfg,
			Root:   t.TempDir(),
			Out:    "/pipeline/.kiln/out/fetch.x",
			State:  state,
		},
		Dir: t.TempDir(),
		Log: &bytes.Buffer{},
		Env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()},
	}
}

// build runs the kind with a guard deadline against hangs.
func build(t *testing.T, f *Fetch, b *kind.Build) (*kind.Result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return f.Build(ctx, b)
}

func logOf(b *kind.Build) string { return b.Log.(*bytes.Buffer).String() }

// partialPath is where a download of url is kept between runs.
func partialPath(state, url string) string {
	return filepath.Join(state, "fetch", "partial", sha256Hex(url))
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustNotExist(t *testing.T, name string) {
	t.Helper()
	if _, err := os.Lstat(name); !os.IsNotExist(err) {
		t.Errorf("%s exists (err %v), want it absent", name, err)
	}
}

// payload is deterministic test content of n bytes.
func payload(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + i*7%26)
	}
	return b
}

// server is an httptest server on 127.0.0.1 recording the Range header of
// every request.
type server struct {
	*httptest.Server
	mu     sync.Mutex
	ranges []string
}

func newServer(t *testing.T, h func(w http.ResponseWriter, r *http.Request, n int)) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.ranges = append(s.ranges, r.Header.Get("Range"))
		n := len(s.ranges)
		s.mu.Unlock()
		h(w, r, n)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) seenRanges() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.ranges...)
}

// serveContent answers with content, honouring Range and If-Range.
func serveContent(w http.ResponseWriter, r *http.Request, etag string, content []byte) {
	if etag != "" {
		w.Header().Set("ETag", etag)
	}
	http.ServeContent(w, r, "", time.Unix(1700000000, 0), bytes.NewReader(content))
}

func contains(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("%s does not mention %q:\n%s", what, w, text)
		}
	}
}

type kindBuild struct {
	b   *kind.Build
	err error
}

// decodeT decodes without a *testing.T, for table literals; a bad snippet
// yields a null config that the table's expectations will not match.
func decodeT(body string) cty.Value {
	file, diags := hclsyntax.ParseConfig([]byte(body), "test.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		return cty.NullVal(cty.DynamicPseudoType)
	}
	v, diags := hcldec.Decode(file.Body, New().Spec(), nil)
	if diags.HasErrors() {
		return cty.NullVal(cty.DynamicPseudoType)
	}
	return v
}
