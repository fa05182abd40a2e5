package fetch

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/zclconf/go-cty/cty"
)

const (
	testRev   = "a09a35458c702b33eeacc393d103063234e8bc28"
	testToken = "hf_s3cr3tT0kenValue"
)

// fakeHub serves one repo the way the Hugging Face hub does: the revision
// API with siblings and the resolve paths. Every request must carry the
// bearer token.
type fakeHub struct {
	*httptest.Server
	kind   string            // "models" or "datasets"
	repo   string            // ORG/NAME
	files  map[string]string // rfilename -> contents
	lfs    map[string]bool   // files listed with lfs.sha256 (others with blobId)
	badSum string            // a file listed with a wrong sha256

	mu       sync.Mutex
	resolved []string
}

func newFakeHub(t *testing.T, kind, repo string, files map[string]string, lfs map[string]bool) *fakeHub {
	h := &fakeHub{kind: kind, repo: repo, files: files, lfs: lfs}
	h.Server = httptest.NewServer(http.HandlerFunc(h.serve))
	t.Cleanup(h.Close)
	return h
}

func (h *fakeHub) serve(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer "+testToken {
		w.Header().Set("X-Error-Message", "Invalid credentials in Authorization header")
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	api := fmt.Sprintf("/api/%s/%s/revision/%s", h.kind, h.repo, testRev)
	resolve := fmt.Sprintf("/%s/resolve/%s/", h.repo, testRev)
	if h.kind == "datasets" {
		resolve = "/datasets" + resolve
	}
	switch {
	case r.URL.Path == api:
		if r.URL.Query().Get("blobs") != "true" {
			http.Error(w, "want blobs=true", http.StatusBadRequest)
			return
		}
		json.NewEncoder(w).Encode(h.listing())
	case strings.HasPrefix(r.URL.Path, resolve):
		name := strings.TrimPrefix(r.URL.Path, resolve)
		body, ok := h.files[name]
		if !ok {
			w.Header().Set("X-Error-Message", "Entry not found")
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		h.mu.Lock()
		h.resolved = append(h.resolved, name)
		h.mu.Unlock()
		serveContent(w, r, `"`+name+`"`, []byte(body))
	default:
		w.Header().Set("X-Error-Message", "Repository not found")
		http.Error(w, "not found", http.StatusNotFound)
	}
}

func (h *fakeHub) listing() map[string]any {
	var siblings []map[string]any
	for name, body := range h.files {
		s := map[string]any{"rfilename": name, "size": len(body)}
		if h.lfs[name] {
			sum := sha256.Sum256([]byte(body))
			hexSum := hex.EncodeToString(sum[:])
			if name == h.badSum {
				hexSum = strings.Repeat("0", 64)
			}
			s["lfs"] = map[string]any{"sha256": hexSum, "size": len(body), "pointerSize": 134}
		} else {
			s["blobId"] = gitBlob(body)
		}
		siblings = append(siblings, s)
	}
	return map[string]any{"id": h.repo, "sha": testRev, "siblings": siblings}
}

func (h *fakeHub) resolvedFiles() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := append([]string(nil), h.resolved...)
	sort.Strings(out)
	return out
}

// gitBlob is the git object id of contents, computed as git does.
func gitBlob(body string) string {
	h := sha1New()
	fmt.Fprintf(h, "blob %d\x00%s", len(body), body)
	return hex.EncodeToString(h.Sum(nil))
}

func hfConfigText(endpoint, kind, files string) string {
	return fmt.Sprintf(`
huggingface {
  repo      = "Qwen/Qwen2.5-Tiny"
  revision  = %q
  kind      = %q
  files     = %s
  endpoint  = %q
  token_env = "KILN_TEST_HF_TOKEN"
}
`, testRev, kind, files, endpoint)
}

var repoFiles = map[string]string{
	"config.json":                      `{"model_type":"qwen2"}`,
	"tokenizer.json":                   `{"version":"1.0"}`,
	"model-00001-of-00002.safetensors": "weights-one",
	"model-00002-of-00002.safetensors": "weights-two",
	"onnx/model.onnx":                  "onnx",
	"sub/extra.json":                   `{}`,
	"README.md":                        "# readme",
}

var repoLFS = map[string]bool{
	"model-00001-of-00002.safetensors": true,
	"model-00002-of-00002.safetensors": true,
	"onnx/model.onnx":                  true,
}

func TestHuggingFaceDownloadsMatchingFiles(t *testing.T) {
	tests := []struct {
		kind, api string
		files     string
		want      []string
	}{
		{"model", "models", `["*.json", "*.safetensors"]`, []string{
			"config.json", "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors", "sub/extra.json", "tokenizer.json",
		}},
		{"dataset", "datasets", `["onnx/", "README.md"]`, []string{"README.md", "onnx/model.onnx"}},
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			hub := newFakeHub(t, tt.api, "Qwen/Qwen2.5-Tiny", repoFiles, repoLFS)
			b := newBuild(t, t.TempDir(), decode(t, hfConfigText(hub.URL, tt.kind, tt.files)))
			b.Env = append(b.Env, "KILN_TEST_HF_TOKEN="+testToken)

			res, err := build(t, &Fetch{}, b)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, hub.resolvedFiles()); diff != "" {
				t.Errorf("files downloaded (-want +got):\n%s", diff)
			}
			root := filepath.Join(b.Dir, "Qwen", "Qwen2.5-Tiny")
			var manifest strings.Builder
			for _, name := range tt.want {
				if got := readFile(t, filepath.Join(root, name)); got != repoFiles[name] {
					t.Errorf("%s = %q, want %q", name, got, repoFiles[name])
				}
				sum := sha256.Sum256([]byte(repoFiles[name]))
				fmt.Fprintf(&manifest, "%x  %s\n", sum, name)
			}
			wantSum := "sha256:" + sha256Hex(manifest.String())
			wantAttrs := map[string]string{"checksum": wantSum, "revision": testRev}
			if diff := cmp.Diff(wantAttrs, res.Attrs); diff != "" {
				t.Errorf("attrs (-want +got):\n%s", diff)
			}
			wantPath := cty.StringVal(filepath.Join(b.Out, "Qwen", "Qwen2.5-Tiny"))
			if !res.Exports["path"].RawEquals(wantPath) || !res.Exports["checksum"].RawEquals(cty.StringVal(wantSum)) {
				t.Errorf("exports = %#v", res.Exports)
			}
			mustNotExist(t, filepath.Join(root, "README.md.partial"))
			assertNoToken(t, logOf(b), fmt.Sprint(res.Attrs), fmt.Sprint(res.Exports))
		})
	}
}

func TestHuggingFaceTokenNeverLeaks(t *testing.T) {
	hub := newFakeHub(t, "models", "Qwen/Qwen2.5-Tiny", repoFiles, repoLFS)
	hub.badSum = "model-00001-of-00002.safetensors"
	tests := []struct {
		name, token, files, want string
	}{
		{"wrong token", "hf_wrongTokenValue", `["*.json"]`, "401"},
		{"no token", "", `["*.json"]`, "Invalid credentials"},
		{"sha mismatch", testToken, `["*.safetensors"]`, "checksum mismatch"},
		{"no match", testToken, `["*.gguf"]`, "none of its 7 files"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBuild(t, t.TempDir(), decode(t, hfConfigText(hub.URL, "model", tt.files)))
			if tt.token != "" {
				b.Env = append(b.Env, "KILN_TEST_HF_TOKEN="+tt.token)
			}
			_, err := build(t, &Fetch{}, b)
			if err == nil {
				t.Fatal("Build succeeded")
			}
			contains(t, "error", err.Error(), tt.want)
			assertNoToken(t, err.Error(), logOf(b))
			if tt.token != "" && strings.Contains(err.Error()+logOf(b), tt.token) {
				t.Errorf("the token %q leaked:\n%s\n%s", tt.token, err, logOf(b))
			}
		})
	}
}

func TestHuggingFaceRefusesUnsafeNames(t *testing.T) {
	hub := newFakeHub(t, "models", "Qwen/Qwen2.5-Tiny", map[string]string{"../escape.json": "{}"}, nil)
	b := newBuild(t, t.TempDir(), decode(t, hfConfigText(hub.URL, "model", `["*.json"]`)))
	b.Env = append(b.Env, "KILN_TEST_HF_TOKEN="+testToken)
	_, err := build(t, &Fetch{}, b)
	if err == nil {
		t.Fatal("Build accepted a file name with ..")
	}
	contains(t, "error", err.Error(), "../escape.json", "not a plain relative path")
}

func assertNoToken(t *testing.T, texts ...string) {
	t.Helper()
	for _, text := range texts {
		if strings.Contains(text, testToken) {
			t.Errorf("the token leaked into:\n%s", text)
		}
	}
}
