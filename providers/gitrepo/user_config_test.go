package gitrepo

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/kind"
)

// userRepo is the kind with a user whose environment names a global git
// configuration file with the given contents.
func userRepo(t *testing.T, gitconfig string) *Repo {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "gitconfig")
	writeFile(t, cfg, gitconfig)
	r := testRepo()
	r.UserEnv = func() []string { return []string{"GIT_CONFIG_GLOBAL=" + cfg, "HOME=/nonexistent"} }
	return r
}

// TestUserInsteadOf: the user's url.<base>.insteadOf rule makes a
// https://github.com/... url fetch from a mirror (here a local folder), for
// a pinned commit and for a ref, while the node's url, key and digest name
// GitHub as written.
func TestUserInsteadOf(t *testing.T) {
	t.Parallel()
	mirrors := t.TempDir()
	src := &source{t: t, dir: filepath.Join(mirrors, "acme", "tool.git")}
	if err := os.MkdirAll(src.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	gitIn(t, src.dir, "init", "--quiet")
	sha := src.commit("one", map[string]string{"a.txt": "from the mirror\n"})
	r := userRepo(t, "[url \"file://"+mirrors+"/\"]\n\tinsteadOf = https://github.com/\n")
	const url = "https://github.com/acme/tool.git"

	b := testBuild(t, decode(t, pinned(url, sha)), t.TempDir(), t.TempDir())
	res, err := r.Build(context.Background(), b)
	if err != nil {
		t.Fatalf("Build: %v\nlog:\n%s", err, b.Log)
	}
	if got := readFile(t, filepath.Join(b.Dir, "a.txt")); got != "from the mirror\n" {
		t.Errorf("a.txt = %q", got)
	}
	if got := gitIn(t, b.Dir, "config", "remote.origin.url"); got != url {
		t.Errorf("origin = %s, want the url as written, %s", got, url)
	}
	if want := digestOf(sha, res.Attrs["tree"], nil); res.Digest != want {
		t.Errorf("Digest = %s, want %s", res.Digest, want)
	}

	n := &kind.Node{Addr: addr.Node{Kind: "git_repo", Name: "tool"}, Config: decode(t, "url = \""+url+"\"\nref = \"main\""), Root: t.TempDir()}
	pins, err := r.ResolvePins(context.Background(), n, []string{"PATH=" + os.Getenv("PATH")})
	if err != nil {
		t.Fatalf("ResolvePins through the mirror: %v", err)
	}
	if pins["commit"] != sha || pins["url"] != url {
		t.Errorf("pins = %v, want commit %s of %s", pins, sha, url)
	}

	// Without the rule, the same build cannot reach the mirror.
	plain := testRepo()
	plain.UserEnv = func() []string { return []string{"GIT_CONFIG_GLOBAL=" + os.DevNull} }
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // nothing may reach the network: a cancelled build fails at once
	if _, err := plain.Build(ctx, testBuild(t, decode(t, pinned(url, sha)), t.TempDir(), t.TempDir())); err == nil {
		t.Error("built from the mirror without the user's rule")
	}
}

// lfsPointer is a Git LFS pointer file to an object no server holds.
const lfsPointer = "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12\n"

// TestUserConfigKeepsTree: settings in the user's configuration that would
// change the files of a checkout, or which of them are hashed, do not:
// line-end conversion, global attributes and excludes, hooks, templates and
// the LFS smudge filter. The checkout and its digest are those of a user
// without configuration.
func TestUserConfigKeepsTree(t *testing.T) {
	t.Parallel()
	if err := exec.Command("git", "lfs", "version").Run(); err != nil {
		t.Fatal("git-lfs is not installed: apt-get install git-lfs")
	}
	src := newSource(t)
	sha := src.commit("one", map[string]string{"a.txt": "one\ntwo\n", "notes.md": "kept\n", ".gitattributes": "*.bin filter=lfs diff=lfs merge=lfs -text\n", "w.bin": lfsPointer})

	home := t.TempDir()
	for name, body := range map[string]string{
		"attributes":            "*.txt text eol=crlf\n",
		"ignore":                "*.md\n",
		"hooks/post-checkout":   "#!/bin/sh\necho hooked > hooked.txt\n",
		"template/info/exclude": "*.txt\n",
	} {
		p := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, p, body)
	}
	if err := os.Chmod(filepath.Join(home, "hooks/post-checkout"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := userRepo(t, strings.Join([]string{
		"[core]",
		"\tautocrlf = true",
		"\tattributesFile = " + filepath.Join(home, "attributes"),
		"\texcludesFile = " + filepath.Join(home, "ignore"),
		"\thooksPath = " + filepath.Join(home, "hooks"),
		"[init]",
		"\ttemplateDir = " + filepath.Join(home, "template"),
		"[filter \"lfs\"]", // as git lfs install --global writes it
		"\tclean = git-lfs clean -- %f",
		"\tsmudge = git-lfs smudge -- %f",
		"\tprocess = git-lfs filter-process",
		"\trequired = true",
		"",
	}, "\n"))

	b := testBuild(t, decode(t, pinned(src.dir, sha)), t.TempDir(), t.TempDir())
	res, err := r.Build(context.Background(), b)
	if err != nil {
		t.Fatalf("Build: %v\nlog:\n%s", err, b.Log)
	}
	for name, want := range map[string]string{"a.txt": "one\ntwo\n", "notes.md": "kept\n", "w.bin": lfsPointer} {
		if got := readFile(t, filepath.Join(b.Dir, name)); got != want {
			t.Errorf("%s = %q, want %q as committed", name, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(b.Dir, "hooked.txt")); err == nil {
		t.Error("the user's post-checkout hook ran")
	}
	if head := gitIn(t, b.Dir, "rev-parse", "HEAD^{tree}"); res.Attrs["tree"] != head {
		t.Errorf("tree %s is not the commit's tree %s: %s", res.Attrs["tree"], head, gitIn(t, b.Dir, "diff-tree", "-r", head, res.Attrs["tree"]))
	}
	bare := build(t, testBuild(t, decode(t, pinned(src.dir, sha)), t.TempDir(), t.TempDir()))
	if res.Digest != bare.Digest {
		t.Errorf("digest with the user's configuration %s, without %s", res.Digest, bare.Digest)
	}
	if drift, err := r.Verify(context.Background(), &b.Node, recordOf(b.Dir, res)); err != nil || drift != "" {
		t.Errorf("Verify with the user's configuration = %q, %v", drift, err)
	}
}

// TestGitEnv pins how the environment of git is assembled.
func TestGitEnv(t *testing.T) {
	build := []string{"PATH=/bin", "HOME=/home/build", "GIT_DIR=/elsewhere", "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=protocol.file.allow", "GIT_CONFIG_VALUE_0=always"}
	user := []string{"HOME=/home/user", "GIT_CONFIG_GLOBAL=/home/user/git.cfg", "https_proxy=http://proxy:3128", "SSH_AUTH_SOCK=/tmp/agent", "SECRET=x", "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=user.name", "GIT_CONFIG_VALUE_0=u"}
	env := gitEnv(build, user)
	get := func(name string) string {
		for _, kv := range env {
			if v, ok := strings.CutPrefix(kv, name+"="); ok {
				return v
			}
		}
		return "(unset)"
	}
	for name, want := range map[string]string{
		"HOME":                "/home/build", // the build's wins
		"GIT_CONFIG_GLOBAL":   "/home/user/git.cfg",
		"https_proxy":         "http://proxy:3128",
		"SSH_AUTH_SOCK":       "/tmp/agent",
		"SECRET":              "(unset)",
		"GIT_DIR":             "(unset)",
		"GIT_TEMPLATE_DIR":    "",
		"GIT_LFS_SKIP_SMUDGE": "1",
		"GIT_CONFIG_KEY_0":    "protocol.file.allow", // the build's settings, not the user's
		"GIT_CONFIG_KEY_1":    "core.autocrlf",
	} {
		if got := get(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if got, want := get("GIT_CONFIG_COUNT"), "13"; got != want {
		t.Errorf("GIT_CONFIG_COUNT = %s, want %s", got, want)
	}
}
