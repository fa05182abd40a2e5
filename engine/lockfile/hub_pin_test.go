package lockfile_test

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/lockfile"
)

// fakeHub serves one data set the way the Hugging Face hub does: the
// revision API (a branch or a commit, with ?blobs=true the file list) and
// file downloads, which it answers only for a full commit, so a download
// that names the branch fails. Its branch main can be moved.
type fakeHub struct {
	repo    string // ORG/NAME
	mu      sync.Mutex
	commits map[string]map[string]string // commit -> file -> contents
	refs    map[string]string            // branch -> commit
	srv     *httptest.Server
}

func newFakeHub(t *testing.T, repo string) *fakeHub {
	h := &fakeHub{repo: repo, commits: map[string]map[string]string{}, refs: map[string]string{}}
	h.srv = httptest.NewUnstartedServer(http.HandlerFunc(h.serve))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h.srv.Listener = l
	h.srv.Start()
	t.Cleanup(h.srv.Close)
	return h
}

// push makes a commit of files and points the branch at it.
func (h *fakeHub) push(branch string, files map[string]string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var names []string
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	sum := sha1.New()
	fmt.Fprintf(sum, "%d", len(h.commits))
	for _, n := range names {
		fmt.Fprintf(sum, "%s\x00%s\x00", n, files[n])
	}
	sha := hex.EncodeToString(sum.Sum(nil))
	h.commits[sha] = files
	h.refs[branch] = sha
	return sha
}

func (h *fakeHub) serve(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	api := "/api/datasets/" + h.repo + "/revision/"
	resolve := "/datasets/" + h.repo + "/resolve/"
	switch {
	case strings.HasPrefix(r.URL.Path, api):
		rev := strings.TrimPrefix(r.URL.Path, api)
		sha := rev
		if c, ok := h.refs[rev]; ok {
			sha = c
		}
		files, ok := h.commits[sha]
		if !ok {
			http.Error(w, "Revision Not Found", http.StatusNotFound)
			return
		}
		answer := map[string]any{"id": h.repo, "sha": sha}
		if r.URL.Query().Get("blobs") == "true" {
			var siblings []map[string]any
			for name, body := range files {
				blob := sha1.New()
				fmt.Fprintf(blob, "blob %d\x00%s", len(body), body)
				siblings = append(siblings, map[string]any{"rfilename": name, "size": len(body), "blobId": hex.EncodeToString(blob.Sum(nil))})
			}
			answer["siblings"] = siblings
		}
		_ = json.NewEncoder(w).Encode(answer)
	case strings.HasPrefix(r.URL.Path, resolve):
		sha, name, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, resolve), "/")
		body, ok := h.commits[sha][name]
		if !ok {
			http.Error(w, "Entry not found (downloads name a commit)", http.StatusNotFound)
			return
		}
		_, _ = w.Write([]byte(body))
	default:
		http.Error(w, "Repository not found", http.StatusNotFound)
	}
}

func hubPipeline(endpoint string) string {
	return `
fetch "aime" {
  huggingface {
    repo     = "Maxwell-Jia/AIME_2024"
    kind     = "dataset"
    revision = "main"
    endpoint = "` + endpoint + `"
  }
}

exec "use" {
  command = "cat ${fetch.aime.out}/Maxwell-Jia/AIME_2024/train.jsonl > $KILN_OUT/rows"
}
`
}

// TestHuggingFaceRefPin: a huggingface revision that is a branch is shown
// unpinned in the plan, resolved to a commit by the first apply and pinned
// in the lock with the ref and repo it came from; a branch that moves
// changes nothing until kiln lock -update re-resolves it, and then the data
// set and its dependents rebuild from the new commit.
func TestHuggingFaceRefPin(t *testing.T) {
	hub := newFakeHub(t, "Maxwell-Jia/AIME_2024")
	first := hub.push("main", map[string]string{"train.jsonl": "{\"id\": 1}\n"})
	dir := pipelineDir(t, hubPipeline(hub.srv.URL))

	pl, diags := open(t, dir).Plan(t.Context())
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var reasons []string
	for _, c := range pl.Changes {
		if c.Node.Addr.String() == "fetch.aime" {
			for _, r := range c.Reasons {
				reasons = append(reasons, r.String())
			}
		}
	}
	want := "not pinned: revision main of dataset Maxwell-Jia/AIME_2024 is a branch or tag: kiln lock (or this apply) resolves it to a commit and pins it in kiln.lock.hcl"
	if !contains(reasons, want) {
		t.Errorf("plan reasons of fetch.aime = %q, want %q", reasons, want)
	}

	mustApply(t, dir)
	pin := map[string]string{"revision": first, "ref": "main", "repo": "datasets/Maxwell-Jia/AIME_2024"}
	if d := cmp.Diff(pin, lock(t, dir).Pins["fetch.aime"]); d != "" {
		t.Fatalf("pin after the first apply (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]string{"fetch.aime": " ", "exec.use": " "}, actions(t, dir)); d != "" {
		t.Fatalf("plan right after apply (-want +got):\n%s", d)
	}

	second := hub.push("main", map[string]string{"train.jsonl": "{\"id\": 2}\n"})
	if d := cmp.Diff(map[string]string{"fetch.aime": " ", "exec.use": " "}, actions(t, dir)); d != "" {
		t.Fatalf("plan after the branch moved: the pin must hold (-want +got):\n%s", d)
	}
	if got := readFile(t, filepath.Join(dir, ".kiln/out/exec.use/rows")); got != "{\"id\": 1}\n" {
		t.Fatalf("exec.use read %q", got)
	}

	res := lockPins(t, dir, "fetch.aime")
	if len(res) != 1 || res[0].Status != lockfile.Pinned || res[0].Pins["revision"] != second || res[0].Old["revision"] != first {
		t.Fatalf("kiln lock -update fetch.aime = %+v, want pinned %s (was %s)", res, second, first)
	}
	if got := actions(t, dir); got["fetch.aime"] != "~" || got["exec.use"] != "?" {
		t.Fatalf("plan after kiln lock -update = %v, want fetch.aime rebuilt and exec.use maybe", got)
	}
	mustApply(t, dir)
	if got := readFile(t, filepath.Join(dir, ".kiln/out/exec.use/rows")); got != "{\"id\": 2}\n" {
		t.Fatalf("after the update, exec.use read %q, want the new commit's rows", got)
	}
	if got := lock(t, dir).Pins["fetch.aime"]["revision"]; got != second {
		t.Errorf("locked revision after apply = %s, want %s", got, second)
	}
}

// TestHuggingFaceLockWithoutBuilding: kiln lock resolves the branch through
// the revision API without downloading; the first apply then fetches that
// commit even though the branch moved meanwhile.
func TestHuggingFaceLockWithoutBuilding(t *testing.T) {
	hub := newFakeHub(t, "Maxwell-Jia/AIME_2024")
	first := hub.push("main", map[string]string{"train.jsonl": "one\n"})
	dir := pipelineDir(t, hubPipeline(hub.srv.URL))

	res := lockPins(t, dir)
	if len(res) != 1 || res[0].Status != lockfile.Pinned || res[0].Pins["revision"] != first {
		t.Fatalf("kiln lock = %+v, want fetch.aime pinned at %s", res, first)
	}
	hub.push("main", map[string]string{"train.jsonl": "two\n"})
	if res := lockPins(t, dir); len(res) != 1 || res[0].Status != lockfile.Kept {
		t.Fatalf("second kiln lock = %+v, want the pin kept", res)
	}
	mustApply(t, dir)
	if got := readFile(t, filepath.Join(dir, ".kiln/out/exec.use/rows")); got != "one\n" {
		t.Fatalf("apply fetched %q, want the locked commit's %q", got, "one\n")
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
