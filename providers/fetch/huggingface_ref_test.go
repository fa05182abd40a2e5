package fetch

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/kind"
)

// refHub answers the revision API for one ref, and records the escaped
// paths it was asked for.
type refHub struct {
	*httptest.Server
	mu    sync.Mutex
	sha   string
	paths []string
}

func newRefHub(t *testing.T, sha string) *refHub {
	h := &refHub{sha: sha}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.paths = append(h.paths, r.URL.EscapedPath()+"?"+r.URL.RawQuery)
		sha := h.sha
		h.mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer "+testToken {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		if r.URL.Query().Get("blobs") == "true" {
			_ = json.NewEncoder(w).Encode(map[string]any{"sha": sha, "siblings": []map[string]any{{"rfilename": "a.json", "size": 2, "blobId": gitBlob("{}")}}})
			return
		}
		if strings.HasPrefix(r.URL.Path, "/datasets/org/data/resolve/"+sha+"/") {
			_, _ = w.Write([]byte("{}"))
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"sha": sha})
	}))
	t.Cleanup(h.Close)
	return h
}

func refConfig(endpoint, revision string) string {
	return `
huggingface {
  repo      = "org/data"
  kind      = "dataset"
  revision  = "` + revision + `"
  endpoint  = "` + endpoint + `"
  token_env = "KILN_TEST_HF_TOKEN"
}`
}

// TestHuggingFaceRef: a branch or tag is resolved through the revision API
// (escaped as the hub expects), the files come from the commit it names, and
// the pin names the ref and repo; Pin applies only a pin of that ref and
// repo.
func TestHuggingFaceRef(t *testing.T) {
	const sha = "65877096c24ffa7abc4e4fa5edb95cf3413a5674"
	hub := newRefHub(t, sha)
	env := []string{"KILN_TEST_HF_TOKEN=" + testToken}
	n := &kind.Node{Addr: addr.Node{Kind: "fetch", Name: "x"}, Config: decode(t, refConfig(hub.URL, "refs/pr/1"))}

	pins, err := New().(*Fetch).ResolvePins(context.Background(), n, env)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"revision": sha, "ref": "refs/pr/1", "repo": "datasets/org/data"}
	if d := cmp.Diff(want, pins); d != "" {
		t.Errorf("ResolvePins (-want +got):\n%s", d)
	}
	if got := hub.paths[0]; got != "/api/datasets/org/data/revision/refs%2Fpr%2F1?" {
		t.Errorf("the revision API was asked %s", got)
	}
	if u := New().(*Fetch).Unpinned(n); !strings.Contains(u, "revision refs/pr/1 of dataset org/data is a branch or tag") {
		t.Errorf("Unpinned = %q", u)
	}

	b := newBuild(t, t.TempDir(), n.Config)
	b.Env = append(b.Env, env...)
	res, err := build(t, &Fetch{}, b)
	if err != nil {
		t.Fatal(err)
	}
	if res.Attrs["revision"] != sha || res.Attrs["ref"] != "refs/pr/1" {
		t.Errorf("attrs = %v", res.Attrs)
	}
	if d := cmp.Diff(want, New().(*Fetch).Pins(n, res)); d != "" {
		t.Errorf("Pins after the build (-want +got):\n%s", d)
	}
	if !strings.Contains(logOf(b), "revision refs/pr/1 is commit "+sha) {
		t.Errorf("the log does not say which commit the ref named:\n%s", logOf(b))
	}

	pinned, err := New().(*Fetch).Pin(n, want)
	if err != nil {
		t.Fatal(err)
	}
	if got := pinned.GetAttr("huggingface").GetAttr("revision").AsString(); got != sha {
		t.Errorf("revision after Pin = %s, want %s", got, sha)
	}
	pn := *n
	pn.Config = pinned
	if u := New().(*Fetch).Unpinned(&pn); u != "" {
		t.Errorf("Unpinned after Pin = %q", u)
	}
	for _, other := range []map[string]string{
		{"revision": sha, "ref": "main", "repo": "datasets/org/data"},
		{"revision": sha, "ref": "refs/pr/1", "repo": "models/org/data"},
	} {
		if got, err := New().(*Fetch).Pin(n, other); err != nil || !got.RawEquals(n.Config) {
			t.Errorf("Pin(%v) changed the configuration (err %v)", other, err)
		}
	}
	if _, err := New().(*Fetch).Pin(n, map[string]string{"revision": "main", "ref": "refs/pr/1", "repo": "datasets/org/data"}); err == nil {
		t.Error("Pin accepted a locked revision that is not a commit")
	}
}
