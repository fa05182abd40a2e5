package plan

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestResolveInputs(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"a.txt":                  "a",
		"b.md":                   "b",
		"data/x.txt":             "x",
		"data/y.csv":             "y",
		"data/sub/z.txt":         "z",
		"data/sub/deep/w.txt":    "w",
		"data/sub/deep/skip.csv": "s",
		"conf/one.yaml":          "1",
		".kiln/store/k/x.txt":    "state, never an input",
	})
	abs := func(rels ...string) []string {
		var out []string
		for _, r := range rels {
			out = append(out, filepath.Join(root, r))
		}
		return out
	}
	tests := []struct {
		name     string
		patterns []string
		want     []string
	}{
		{"file", []string{"a.txt"}, abs("a.txt")},
		{"folder", []string{"conf"}, abs("conf")},
		{"absolute", []string{filepath.Join(root, "b.md")}, abs("b.md")},
		{"star", []string{"data/*.txt"}, abs("data/x.txt")},
		{"star skips folders", []string{"data/*"}, abs("data/x.txt", "data/y.csv")},
		{"question mark", []string{"?.txt"}, abs("a.txt")},
		{"double star", []string{"data/**/*.txt"}, abs("data/sub/deep/w.txt", "data/sub/z.txt", "data/x.txt")},
		{"double star at the root skips .kiln", []string{"**/*.txt"}, abs("a.txt", "data/sub/deep/w.txt", "data/sub/z.txt", "data/x.txt")},
		{"double star at the end", []string{"data/sub/**"}, abs("data/sub/deep/skip.csv", "data/sub/deep/w.txt", "data/sub/z.txt")},
		{"sorted and without duplicates", []string{"data/x.txt", "b.md", "data/*.txt", "a.txt"}, abs("a.txt", "b.md", "data/x.txt")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ResolveInputs(root, tt.patterns)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ResolveInputs(%q) (-want +got):\n%s", tt.patterns, diff)
			}
		})
	}
}

func TestResolveInputsErrors(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"a.txt": "a", "data/x.txt": "x"})
	tests := []struct {
		name     string
		patterns []string
		want     []string // substrings of the error
	}{
		{"missing literal", []string{"a.txt", "missing.txt"}, []string{"missing.txt", "not found"}},
		{"star matching nothing", []string{"data/*.csv"}, []string{"data/*.csv", "matches no file"}},
		{"star matching a file and a folder", []string{"*"}, nil},
		{"star matching only folders", []string{"d*"}, []string{"d*", "matches no file"}},
		{"double star matching nothing", []string{"data/**/*.csv"}, []string{"data/**/*.csv", "matches no file"}},
		{"double star under a missing folder", []string{"nowhere/**/*.txt"}, []string{"nowhere/**/*.txt", "matches no file"}},
		{"bad pattern", []string{"data/[.txt"}, []string{"data/[.txt"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ResolveInputs(root, tt.patterns)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("ResolveInputs(%q) succeeded, want an error", tt.patterns)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

// TestResolveInputsGlobBeforeDoubleStar: a wildcard in the folders before
// ** still matches.
func TestResolveInputsGlobBeforeDoubleStar(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"data1/sub/x.txt": "x", "data2/y.txt": "y"})
	got, err := ResolveInputs(root, []string{"data*/**/*.txt"})
	want := []string{filepath.Join(root, "data1/sub/x.txt"), filepath.Join(root, "data2/y.txt")}
	if err != nil || !cmp.Equal(want, got) {
		t.Fatalf("data*/**/*.txt: got %q, %v; want %q (the walk starts at the literal folder \"data*\", which does not exist)", got, err, want)
	}
}

// TestResolveInputsRootWithGlobCharacters: the pipeline folder's own name
// is not a pattern.
func TestResolveInputsRootWithGlobCharacters(t *testing.T) {
	root := filepath.Join(t.TempDir(), "run[1]")
	writeFiles(t, root, map[string]string{"data/x.txt": "x"})
	got, err := ResolveInputs(root, []string{"data/*.txt"})
	want := []string{filepath.Join(root, "data/x.txt")}
	if err != nil || !cmp.Equal(want, got) {
		t.Fatalf("in a pipeline folder named run[1], data/*.txt gives %q, %v; want %q (the folder's path is matched as a pattern)", got, err, want)
	}
}
