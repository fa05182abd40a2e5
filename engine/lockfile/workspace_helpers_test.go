package lockfile_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kilnbuild/kiln/engine"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/lockfile"
	"github.com/kilnbuild/kiln/engine/run"
	"github.com/kilnbuild/kiln/providers"
)

// pipelineDir writes a pipeline file into a fresh folder.
func pipelineDir(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "pipeline.hcl"), src)
	return dir
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// open opens the pipeline in dir as the kiln command does; replace names
// nodes to rebuild.
func open(t *testing.T, dir string, replace ...string) *engine.Workspace {
	t.Helper()
	var rep []addr.Node
	for _, r := range replace {
		a, err := addr.Parse(r)
		if err != nil {
			t.Fatal(err)
		}
		rep = append(rep, a)
	}
	w, diags, err := engine.Open(engine.Options{Path: dir, Kinds: providers.All(), Replace: rep})
	if err != nil || diags.HasErrors() {
		t.Fatalf("open: %v %s", err, diags)
	}
	return w
}

// actions plans the pipeline in dir and returns each node's action symbol.
func actions(t *testing.T, dir string) map[string]string {
	t.Helper()
	pl, diags := open(t, dir).Plan(context.Background())
	if diags.HasErrors() {
		t.Fatalf("plan: %s", diags)
	}
	out := map[string]string{}
	for _, d := range pl.Changes {
		out[d.Node.Addr.String()] = string(d.Action)
	}
	return out
}

// apply applies the pipeline in dir; it returns the failure of a node, if any.
func apply(t *testing.T, dir string, replace ...string) error {
	t.Helper()
	res, err := open(t, dir, replace...).Apply(context.Background(), engine.ApplyOptions{Parallelism: 2})
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	for _, n := range res.Nodes {
		if n.Outcome == run.Failed {
			return n.Err
		}
	}
	return nil
}

func mustApply(t *testing.T, dir string, replace ...string) {
	t.Helper()
	if err := apply(t, dir, replace...); err != nil {
		t.Fatalf("apply failed: %v", err)
	}
}

// lock loads the pipeline's lock file, which must parse.
func lock(t *testing.T, dir string) *lockfile.File {
	t.Helper()
	f, _, diags := lockfile.Load(lockfile.Path(dir))
	if diags.HasErrors() {
		t.Fatalf("lock: %s", diags)
	}
	return f
}

// lockPins runs kiln lock (with -update for the given nodes).
func lockPins(t *testing.T, dir string, update ...string) []lockfile.Resolution {
	t.Helper()
	var up []addr.Node
	for _, u := range update {
		a, _ := addr.Parse(u)
		up = append(up, a)
	}
	res, err := open(t, dir).LockPins(context.Background(), engine.LockOptions{Update: up})
	if err != nil {
		t.Fatalf("kiln lock: %v", err)
	}
	return res
}

// gitRepo is a source repository made by a test.
type gitRepo struct {
	t   *testing.T
	dir string
}

func newGitRepo(t *testing.T) *gitRepo {
	g := &gitRepo{t: t, dir: t.TempDir()}
	g.git("init", "--quiet")
	return g
}

func (g *gitRepo) git(args ...string) string {
	g.t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = g.dir
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + g.dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull,
		"GIT_AUTHOR_NAME=kiln test", "GIT_AUTHOR_EMAIL=test@kiln.invalid",
		"GIT_COMMITTER_NAME=kiln test", "GIT_COMMITTER_EMAIL=test@kiln.invalid",
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		g.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// commit writes f and commits it on the current branch; it returns the SHA.
func (g *gitRepo) commit(content string) string {
	g.t.Helper()
	writeFile(g.t, filepath.Join(g.dir, "f"), content)
	g.git("add", "-A")
	g.git("commit", "--quiet", "-m", content)
	return g.git("rev-parse", "HEAD")
}
