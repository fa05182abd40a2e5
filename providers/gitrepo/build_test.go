package gitrepo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/zclconf/go-cty/cty"
)

func pinned(url, sha string, extra ...string) string {
	return fmt.Sprintf("url = %q\ncommit = %q\n%s", url, sha, strings.Join(extra, "\n"))
}

func TestCheckoutAtCommit(t *testing.T) {
	t.Parallel()
	src := newSource(t)
	first := src.commit("one", map[string]string{"a.txt": "one\n", "dir/b.txt": "b\n"})
	src.commit("two", map[string]string{"a.txt": "two\n"})

	b := testBuild(t, decode(t, pinned(src.dir, first)), t.TempDir(), t.TempDir())
	res := build(t, b)

	if got := readFile(t, filepath.Join(b.Dir, "a.txt")); got != "one\n" {
		t.Errorf("a.txt = %q, want the first commit's", got)
	}
	if got := gitIn(t, b.Dir, "rev-parse", "HEAD"); got != first {
		t.Errorf("HEAD = %s, want %s", got, first)
	}
	if got := gitIn(t, b.Dir, "remote", "get-url", "origin"); got != src.dir {
		t.Errorf("origin = %s, want %s", got, src.dir)
	}
	if res.Attrs["commit"] != first || res.Attrs["tree"] != gitIn(t, b.Dir, "rev-parse", "HEAD^{tree}") {
		t.Errorf("Attrs = %v, want commit %s and the commit's tree", res.Attrs, first)
	}
	if !res.Exports["commit"].RawEquals(cty.StringVal(first)) || !res.Exports["url"].RawEquals(cty.StringVal(src.dir)) {
		t.Errorf("Exports = %#v", res.Exports)
	}
	if want := digestOf(first, res.Attrs["tree"], nil); res.Digest != want {
		t.Errorf("Digest = %s, want %s", res.Digest, want)
	}
}

// TestSecondCheckoutUsesMirror removes the source after the first checkout:
// the second checkout can only succeed from the mirror.
func TestSecondCheckoutUsesMirror(t *testing.T) {
	t.Parallel()
	src := newSource(t)
	sha := src.commit("one", map[string]string{"a.txt": "one\n"})
	state, root := t.TempDir(), t.TempDir()
	cfg := decode(t, pinned(src.dir, sha))

	first := build(t, testBuild(t, cfg, state, root))
	if _, err := os.Stat(mirrorPath(state, src.dir)); err != nil {
		t.Fatalf("no mirror after the first checkout: %v", err)
	}
	if err := os.Rename(src.dir, src.dir+".gone"); err != nil {
		t.Fatal(err)
	}
	b := testBuild(t, cfg, state, root)
	second := build(t, b)

	if got := readFile(t, filepath.Join(b.Dir, "a.txt")); got != "one\n" {
		t.Errorf("a.txt = %q", got)
	}
	if first.Digest != second.Digest {
		t.Errorf("digest changed between two checkouts of one commit: %s, %s", first.Digest, second.Digest)
	}
	// A commit the mirror lacks still needs the source, and says so.
	other := decode(t, pinned(src.dir, strings.Repeat("ab", 20)))
	if _, err := testRepo().Build(context.Background(), testBuild(t, other, state, root)); err == nil {
		t.Error("a commit missing from the mirror and a missing source built")
	}
}

func TestMissingCommit(t *testing.T) {
	t.Parallel()
	for _, env := range [][]string{nil, protocolV0} {
		src := newSource(t)
		src.commit("one", map[string]string{"a.txt": "one\n"})
		missing := "0123456789abcdef0123456789abcdef01234567"
		_, err := testRepo().Build(context.Background(), testBuild(t, decode(t, pinned(src.dir, missing)), t.TempDir(), t.TempDir(), env...))
		if err == nil || !strings.Contains(err.Error(), "commit "+missing+" not found in "+src.dir) {
			t.Errorf("env %v: error = %v, want commit not found", env, err)
		}
	}
}

// TestUnadvertisedCommit uses protocol version 0, whose servers refuse a
// commit that is no branch tip: the full-fetch fallback must find it, also
// when the mirror is already shallow.
func TestUnadvertisedCommit(t *testing.T) {
	t.Parallel()
	src := newSource(t)
	first := src.commit("one", map[string]string{"a.txt": "one\n"})
	tip := src.commit("two", map[string]string{"a.txt": "two\n"})
	state := t.TempDir()

	build(t, testBuild(t, decode(t, pinned(src.dir, tip)), state, t.TempDir(), protocolV0...))
	b := testBuild(t, decode(t, pinned(src.dir, first)), state, t.TempDir(), protocolV0...)
	res := build(t, b)
	if res.Attrs["commit"] != first || readFile(t, filepath.Join(b.Dir, "a.txt")) != "one\n" {
		t.Errorf("checkout of an older commit over protocol 0: commit %s, a.txt %q", res.Attrs["commit"], readFile(t, filepath.Join(b.Dir, "a.txt")))
	}
}

func TestRefResolution(t *testing.T) {
	t.Parallel()
	src := newSource(t)
	first := src.commit("one", map[string]string{"a.txt": "one\n"})
	gitIn(t, src.dir, "tag", "-a", "-m", "release", "v1")
	tip := src.commit("two", map[string]string{"a.txt": "two\n"})
	gitIn(t, src.dir, "branch", "v1-branch", first)

	tests := []struct{ ref, want string }{
		{"main", tip},
		{"v1", first}, // an annotated tag, peeled to its commit
		{"refs/heads/v1-branch", first},
	}
	for _, tt := range tests {
		cfg := decode(t, fmt.Sprintf("url = %q\nref = %q", src.dir, tt.ref))
		b := testBuild(t, cfg, t.TempDir(), t.TempDir())
		res := build(t, b)
		if res.Attrs["commit"] != tt.want || !res.Exports["commit"].RawEquals(cty.StringVal(tt.want)) {
			t.Errorf("ref %s: Attrs[commit] = %s, Exports[commit] = %#v, want %s", tt.ref, res.Attrs["commit"], res.Exports["commit"], tt.want)
		}
		if got := gitIn(t, b.Dir, "rev-parse", "HEAD"); got != tt.want {
			t.Errorf("ref %s: HEAD = %s, want %s", tt.ref, got, tt.want)
		}
	}

	cfg := decode(t, fmt.Sprintf("url = %q\nref = %q", src.dir, "no-such-branch"))
	_, err := testRepo().Build(context.Background(), testBuild(t, cfg, t.TempDir(), t.TempDir()))
	if err == nil || !strings.Contains(err.Error(), "ref no-such-branch not found") {
		t.Errorf("unknown ref: error = %v", err)
	}
}

// TestConcurrentCheckouts shares one mirror between builds running at once.
func TestConcurrentCheckouts(t *testing.T) {
	t.Parallel()
	src := newSource(t)
	var shas []string
	for i := range 4 {
		shas = append(shas, src.commit(fmt.Sprint(i), map[string]string{"a.txt": fmt.Sprintln(i)}))
	}
	state, root := t.TempDir(), t.TempDir()
	builds := make([]*kindBuild, len(shas))
	for i, sha := range shas {
		builds[i] = &kindBuild{b: testBuild(t, decode(t, pinned(src.dir, sha)), state, root)}
	}
	var wg sync.WaitGroup
	for _, kb := range builds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, kb.err = testRepo().Build(context.Background(), kb.b)
		}()
	}
	wg.Wait()
	for i, kb := range builds {
		if kb.err != nil {
			t.Errorf("build of commit %d: %v", i, kb.err)
			continue
		}
		if got := readFile(t, filepath.Join(kb.b.Dir, "a.txt")); got != fmt.Sprintln(i) {
			t.Errorf("build of commit %d: a.txt = %q", i, got)
		}
	}
	gitIn(t, mirrorPath(state, src.dir), "fsck", "--no-progress")
}

func TestGitLFSMissing(t *testing.T) {
	t.Parallel()
	git, err := lookPath("git", []string{"PATH=" + os.Getenv("PATH")})
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if err := os.Symlink(git, filepath.Join(bin, "git")); err != nil {
		t.Fatal(err)
	}
	src := newSource(t)
	sha := src.commit("one", map[string]string{"a.txt": "one\n"})
	b := testBuild(t, decode(t, pinned(src.dir, sha, "lfs = true")), t.TempDir(), t.TempDir())
	b.Env = []string{"PATH=" + bin, "HOME=" + t.TempDir()}
	_, err = testRepo().Build(context.Background(), b)
	if err == nil || !strings.Contains(err.Error(), "git-lfs is not installed") || !strings.Contains(err.Error(), "install git-lfs") {
		t.Errorf("error = %v, want one saying to install git-lfs", err)
	}
}

type kindBuild struct {
	b   *kind.Build
	err error
}

func TestTagObjectIsNotACommit(t *testing.T) {
	t.Parallel()
	src := newSource(t)
	src.commit("one", map[string]string{"a.txt": "one\n"})
	gitIn(t, src.dir, "tag", "-a", "-m", "release", "v1")
	tag := gitIn(t, src.dir, "rev-parse", "v1")
	_, err := testRepo().Build(context.Background(), testBuild(t, decode(t, pinned(src.dir, tag)), t.TempDir(), t.TempDir()))
	if err == nil || !strings.Contains(err.Error(), "is a tag, not a commit") {
		t.Errorf("error = %v, want one saying the SHA is a tag", err)
	}
}

// TestRelativeURL gives the url as a path relative to the pipeline folder.
func TestRelativeURL(t *testing.T) {
	t.Parallel()
	src := newSource(t)
	sha := src.commit("one", map[string]string{"a.txt": "one\n"})
	b := testBuild(t, decode(t, pinned("src", sha)), t.TempDir(), filepath.Dir(src.dir))
	res := build(t, b)
	if got := readFile(t, filepath.Join(b.Dir, "a.txt")); got != "one\n" || res.Attrs["commit"] != sha {
		t.Errorf("a.txt = %q, commit %s", got, res.Attrs["commit"])
	}
	if !res.Exports["url"].RawEquals(cty.StringVal("src")) {
		t.Errorf("url export = %#v, want the url as written", res.Exports["url"])
	}
}
