package review

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitRepo is a real git repository in a temporary folder, with fixed
// author and dates so commit ids do not depend on when the test runs.
type gitRepo struct {
	t   testing.TB
	dir string
}

func newGitRepo(t testing.TB, dir string) *gitRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	g := &gitRepo{t: t, dir: dir}
	g.git("init", "-q", "-b", "main")
	return g
}

// git runs git in the repository and returns its trimmed output.
func (g *gitRepo) git(args ...string) string {
	g.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", g.dir}, args...)...)
	cmd.Env = append(os.Environ(),
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=kiln", "GIT_AUTHOR_EMAIL=kiln@example.com", "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z",
		"GIT_COMMITTER_NAME=kiln", "GIT_COMMITTER_EMAIL=kiln@example.com", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z")
	out, err := cmd.CombinedOutput()
	if err != nil {
		g.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// write writes files (path → content) into the work tree.
func (g *gitRepo) write(files map[string]string) {
	g.t.Helper()
	for name, content := range files {
		p := filepath.Join(g.dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			g.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			g.t.Fatal(err)
		}
	}
}

// commit writes files, commits everything and returns the commit id.
func (g *gitRepo) commit(msg string, files map[string]string) string {
	g.t.Helper()
	g.write(files)
	g.git("add", "-A")
	g.git("commit", "-q", "--allow-empty", "-m", msg)
	return g.git("rev-parse", "HEAD")
}
