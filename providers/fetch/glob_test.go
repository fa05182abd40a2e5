package fetch

import (
	"crypto/sha1"
	"hash"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func sha1New() hash.Hash { return sha1.New() }

func TestGlobMatchesLikeFnmatch(t *testing.T) {
	names := []string{"config.json", "sub/extra.json", "model.safetensors", "onnx/model.onnx", "a[1].txt", "README.md", "x.json.bak"}
	tests := []struct {
		patterns []string
		want     []string
	}{
		{nil, names},
		{[]string{"*.json"}, []string{"config.json", "sub/extra.json"}},
		{[]string{"onnx/"}, []string{"onnx/model.onnx"}},
		{[]string{"onnx/*"}, []string{"onnx/model.onnx"}},
		{[]string{"?EADME.md"}, []string{"README.md"}},
		{[]string{"[A-Z]*"}, []string{"README.md"}},
		{[]string{"[!a-z]*"}, []string{"README.md"}},
		{[]string{"a[[]1].txt"}, []string{"a[1].txt"}},
		{[]string{"config.json", "*.safetensors"}, []string{"config.json", "model.safetensors"}},
		{[]string{"*.JSON"}, nil},
	}
	for _, tt := range tests {
		set, err := newGlobSet(tt.patterns)
		if err != nil {
			t.Fatalf("%q: %v", tt.patterns, err)
		}
		var got []string
		for _, n := range names {
			if set.match(n) {
				got = append(got, n)
			}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.patterns, diff)
		}
	}
	for _, bad := range []string{"", "[abc"} {
		if _, err := compileGlob(bad); err == nil {
			t.Errorf("compileGlob(%q) accepted a bad pattern", bad)
		}
	}
}

// gitBlobID agrees with `git hash-object`.
func TestGitBlobID(t *testing.T) {
	p := filepath.Join(t.TempDir(), "hello")
	os.WriteFile(p, []byte("hello"), 0o644)
	got, err := gitBlobID(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0"; got != want {
		t.Errorf("gitBlobID = %s, want %s", got, want)
	}
}
