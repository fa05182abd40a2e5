package gitrepo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// patchSeries clones src and returns, for each successive content of a.txt,
// the patch from the previous content, as "git diff" prints it.
func patchSeries(t *testing.T, src *source, contents ...string) []string {
	t.Helper()
	work := filepath.Join(t.TempDir(), "work")
	gitIn(t, filepath.Dir(work), "clone", "--quiet", src.dir, work)
	var patches []string
	for _, c := range contents {
		writeFile(t, filepath.Join(work, "a.txt"), c)
		patches = append(patches, gitIn(t, work, "diff")+"\n")
		gitIn(t, work, "add", "a.txt")
	}
	return patches
}

// writePatches writes patches into root as NAME.patch files and returns the
// patches attribute that names them.
func writePatches(t *testing.T, root string, names []string, bodies []string) string {
	t.Helper()
	var quoted []string
	for i, name := range names {
		writeFile(t, filepath.Join(root, name), bodies[i])
		quoted = append(quoted, fmt.Sprintf("%q", name))
	}
	return "patches = [" + strings.Join(quoted, ", ") + "]"
}

func TestPatchesInOrder(t *testing.T) {
	t.Parallel()
	src := newSource(t)
	sha := src.commit("one", map[string]string{"a.txt": "one\n"})
	p := patchSeries(t, src, "one\nfirst\n", "one\nfirst\nsecond\n") // the second needs the first
	root := t.TempDir()
	attr := writePatches(t, root, []string{"1.patch", "2.patch"}, p)

	b := testBuild(t, decode(t, pinned(src.dir, sha, attr)), t.TempDir(), root)
	res := build(t, b)

	if got := readFile(t, filepath.Join(b.Dir, "a.txt")); got != "one\nfirst\nsecond\n" {
		t.Errorf("a.txt = %q, want both patches applied", got)
	}
	if got := gitIn(t, b.Dir, "rev-parse", "HEAD"); got != sha {
		t.Errorf("HEAD = %s after patching, want %s", got, sha)
	}
	if staged := gitIn(t, b.Dir, "diff", "--cached", "--name-only"); staged != "" {
		t.Errorf("patches reached the real index: %s", staged)
	}
	if res.Attrs["tree"] == gitIn(t, b.Dir, "rev-parse", "HEAD^{tree}") {
		t.Error("tree attribute is the commit's tree, not the patched tree")
	}
	// The recorded tree is the patched working tree, file for file.
	if got := gitIn(t, b.Dir, "cat-file", "blob", res.Attrs["tree"]+":a.txt"); got != "one\nfirst\nsecond" {
		t.Errorf("a.txt in the recorded tree = %q", got)
	}
	patches, err := readPatches(root, []string{"1.patch", "2.patch"})
	if err != nil {
		t.Fatal(err)
	}
	if want := digestOf(sha, res.Attrs["tree"], patches); res.Digest != want {
		t.Errorf("Digest = %s, want %s", res.Digest, want)
	}

	// In the other order the second patch does not apply, and the error says
	// which patch and what git apply said.
	swapped := writePatches(t, root, []string{"2.patch", "1.patch"}, []string{p[1], p[0]})
	_, err = testRepo().Build(context.Background(), testBuild(t, decode(t, pinned(src.dir, sha, swapped)), t.TempDir(), root))
	if err == nil {
		t.Fatal("patches applied out of order")
	}
	for _, want := range []string{"patch 2.patch does not apply", "a.txt", "patch does not apply"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
}

func TestBadPatchNamesFile(t *testing.T) {
	t.Parallel()
	src := newSource(t)
	sha := src.commit("one", map[string]string{"a.txt": "one\n"})
	root := t.TempDir()
	bad := "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-not what a.txt holds\n+x\n"
	if err := os.MkdirAll(filepath.Join(root, "patches"), 0o755); err != nil {
		t.Fatal(err)
	}
	attr := writePatches(t, root, []string{"patches/bad.patch"}, []string{bad})

	_, err := testRepo().Build(context.Background(), testBuild(t, decode(t, pinned(src.dir, sha, attr)), t.TempDir(), root))
	if err == nil {
		t.Fatal("a bad patch applied")
	}
	for _, want := range []string{"patch patches/bad.patch does not apply", "a.txt:1", "patch does not apply"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
}

func TestDigest(t *testing.T) {
	t.Parallel()
	src := newSource(t)
	sha := src.commit("one", map[string]string{"a.txt": "one\n"})
	root := t.TempDir()
	patchA := patchSeries(t, src, "one\nA\n")[0]
	patchB := patchSeries(t, src, "one\nB\n")[0]
	state := t.TempDir()

	digest := func(body string) string {
		attr := writePatches(t, root, []string{"p.patch"}, []string{body})
		return build(t, testBuild(t, decode(t, pinned(src.dir, sha, attr)), state, root)).Digest
	}
	a1, a2, b := digest(patchA), digest(patchA), digest(patchB)
	if a1 != a2 {
		t.Errorf("digest differs between two checkouts with the same patch: %s, %s", a1, a2)
	}
	if a1 == b {
		t.Errorf("digest %s did not change with the patch", a1)
	}
	// Only the patch's contents count, not where the pipeline is.
	otherRoot := t.TempDir()
	attr := writePatches(t, otherRoot, []string{"p.patch"}, []string{patchA})
	if moved := build(t, testBuild(t, decode(t, pinned(src.dir, sha, attr)), t.TempDir(), otherRoot)).Digest; moved != a1 {
		t.Errorf("digest changed with the pipeline folder: %s, %s", a1, moved)
	}
}
