package review

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kilnbuild/kiln/providers"
)

func TestCompareRefusesBadRevisions(t *testing.T) {
	repo := newGitRepo(t, t.TempDir())
	repo.commit("base", map[string]string{"pipeline.hcl": `exec "a" { command = "true" }` + "\n"})
	path := filepath.Join(repo.dir, "pipeline.hcl")
	tests := []struct {
		name, old, new string
		want           string
		is             error
	}{
		{"unknown", "no-such-branch", "", `"no-such-branch" is not a commit of`, ErrUnknownRevision},
		{"unknown new side", "HEAD", "v9.9", `"v9.9" is not a commit of`, ErrUnknownRevision},
		{"option-like", "--output=/tmp/x", "", `starts with '-'`, nil},
		{"empty", "", "", "empty revision", nil},
		{"tree, not a commit", "HEAD^{tree}", "", "is not a commit of", ErrUnknownRevision},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compare(context.Background(), Options{Path: path, Old: tt.old, New: tt.new, Kinds: providers.All()})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want it to say %q", err, tt.want)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v is not %v", err, tt.is)
			}
		})
	}
}

func TestCompareNamesTheRevisionWherePipelineIsBroken(t *testing.T) {
	repo := newGitRepo(t, t.TempDir())
	repo.commit("broken", map[string]string{"pipeline.hcl": "exec \"a\" {\n  command =\n}\n"})
	repo.write(map[string]string{"pipeline.hcl": `exec "a" { command = "true" }` + "\n"})
	_, err := Compare(context.Background(), Options{Path: filepath.Join(repo.dir, "pipeline.hcl"), Old: "HEAD", Kinds: providers.All()})
	var le *LoadError
	if !errors.As(err, &le) {
		t.Fatalf("error = %v, want a *LoadError", err)
	}
	if le.Revision.Name != "HEAD" || le.Revision.WorkingTree {
		t.Errorf("Revision = %+v, want HEAD", le.Revision)
	}
	if !strings.Contains(err.Error(), "does not load at HEAD (") {
		t.Errorf("message %q does not name the revision", err)
	}
	if d := le.Diags.Errs()[0]; !strings.HasPrefix(d.Error(), "HEAD:pipeline.hcl:2,") {
		t.Errorf("diagnostic %q does not name the file as HEAD:pipeline.hcl", d.Error())
	}
	if _, ok := le.Files["HEAD:pipeline.hcl"]; !ok {
		t.Errorf("Files has no HEAD:pipeline.hcl for the snippet: %v", le.Files)
	}

	// The working tree broken instead: the error names it.
	repo.commit("fixed", nil)
	repo.write(map[string]string{"pipeline.hcl": "exec \"a\" {\n  command =\n}\n"})
	_, err = Compare(context.Background(), Options{Path: filepath.Join(repo.dir, "pipeline.hcl"), Old: "HEAD", Kinds: providers.All()})
	if !errors.As(err, &le) || !le.Revision.WorkingTree || !strings.Contains(err.Error(), "the working tree") {
		t.Errorf("error = %v, want a *LoadError of the working tree", err)
	}
}

func TestComparePipelineMissingAtRevision(t *testing.T) {
	repo := newGitRepo(t, t.TempDir())
	repo.commit("empty", map[string]string{"README": "hi\n"})
	repo.commit("pipeline", map[string]string{"pipeline.hcl": `exec "a" { command = "true" }` + "\n"})
	_, err := Compare(context.Background(), Options{Path: filepath.Join(repo.dir, "pipeline.hcl"), Old: "HEAD~1", Kinds: providers.All()})
	if err == nil || !strings.Contains(err.Error(), "pipeline.hcl does not exist at HEAD~1") {
		t.Errorf("error = %v", err)
	}
}

func TestCompareOutsideRepository(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "pipeline.hcl"), []byte(`exec "a" { command = "true" }`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir))
	_, err := Compare(context.Background(), Options{Path: dir, Old: "HEAD", Kinds: providers.All()})
	if err == nil || !strings.Contains(err.Error(), "is not inside a git repository") {
		t.Errorf("error = %v", err)
	}
}

func TestExtractKeepsEntriesInside(t *testing.T) {
	tests := []struct {
		name    string
		entries []tar.Header
	}{
		{"parent path", []tar.Header{{Name: "../escape.txt", Typeflag: tar.TypeReg, Mode: 0o644}}},
		{"absolute path", []tar.Header{{Name: "/tmp/escape.txt", Typeflag: tar.TypeReg, Mode: 0o644}}},
		{"through a symlink", []tar.Header{
			{Name: "link", Typeflag: tar.TypeSymlink, Linkname: ".."},
			{Name: "link/escape.txt", Typeflag: tar.TypeReg, Mode: 0o644},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			tw := tar.NewWriter(&buf)
			for _, h := range tt.entries {
				if err := tw.WriteHeader(&h); err != nil {
					t.Fatal(err)
				}
			}
			tw.Close()
			parent := t.TempDir()
			dir := filepath.Join(parent, "tree")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := extract(&buf, dir); err == nil {
				t.Error("extract succeeded, want an error")
			}
			if _, err := os.Stat(filepath.Join(parent, "escape.txt")); err == nil {
				t.Error("a file was written outside the tree")
			}
		})
	}
}
