package lockfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLoadCachedHitsAndNoticesEdits(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	f := New()
	f.Pins["git_repo.x"] = map[string]string{"commit": "0123456789abcdef0123456789abcdef01234567"}
	f.Nodes["exec.a"] = Node{Key: strings.Repeat("a", 64), Digest: strings.Repeat("b", 64), Kiln: "0.1.0"}
	if err := f.Write(path); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, "cache")
	first, _, diags := LoadCached(path, cache)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if _, err := os.Stat(filepath.Join(cache, "lock")); err != nil {
		t.Fatalf("no cache written: %v", err)
	}
	second, hf, diags := LoadCached(path, cache)
	if diags.HasErrors() || hf != nil {
		t.Fatalf("second load did not come from the cache: %v, %v", hf, diags)
	}
	if d := cmp.Diff(first, second); d != "" {
		t.Fatalf("cached lock differs (-parsed +cached):\n%s", d)
	}
	// A hand-broken file is parsed and reported, never answered from the cache.
	if err := os.WriteFile(path, []byte("version = 1\nnonsense {\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, diags := LoadCached(path, cache); !diags.HasErrors() {
		t.Fatal("a broken lock was accepted from the cache")
	}
}
