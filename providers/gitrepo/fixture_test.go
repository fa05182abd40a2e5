package gitrepo

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/zclconf/go-cty/cty"
)

// fixtureEnv is the environment of git commands that make test repositories.
func fixtureEnv(t *testing.T) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + t.TempDir(),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=" + os.DevNull,
		"GIT_AUTHOR_NAME=kiln test", "GIT_AUTHOR_EMAIL=test@kiln.invalid",
		"GIT_COMMITTER_NAME=kiln test", "GIT_COMMITTER_EMAIL=test@kiln.invalid",
	}
}

// gitIn runs git in dir for a test fixture and returns its trimmed output.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "protocol.file.allow=always", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	cmd.Env = fixtureEnv(t)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return strings.TrimSpace(string(out))
}

// source is a repository made by a test.
type source struct {
	t   *testing.T
	dir string
}

func newSource(t *testing.T) *source {
	t.Helper()
	s := &source{t: t, dir: filepath.Join(t.TempDir(), "src")}
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	gitIn(t, s.dir, "init", "--quiet")
	return s
}

// commit writes files (path → contents) and commits them; it returns the SHA.
func (s *source) commit(msg string, files map[string]string) string {
	s.t.Helper()
	for name, body := range files {
		p := filepath.Join(s.dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			s.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			s.t.Fatal(err)
		}
	}
	gitIn(s.t, s.dir, "add", "-A")
	gitIn(s.t, s.dir, "commit", "--quiet", "--allow-empty", "-m", msg)
	return gitIn(s.t, s.dir, "rev-parse", "HEAD")
}

// decode decodes an HCL body with the kind's Spec, as the engine does.
func decode(t *testing.T, src string) cty.Value {
	t.Helper()
	f, diags := hclsyntax.ParseConfig([]byte(src), "test.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("parse: %s", diags)
	}
	v, diags := hcldec.Decode(f.Body, testRepo().Spec(), nil)
	if diags.HasErrors() {
		t.Fatalf("decode: %s", diags)
	}
	return v
}

func testRepo() *Repo { return &Repo{Git: "git", KillGrace: time.Second} }

// testBuild is a build of config into a fresh folder with the given state.
func testBuild(t *testing.T, config cty.Value, state, root string, extraEnv ...string) *kind.Build {
	return &kind.Build{
		Node: kind.Node{
			Addr:   addr.Node{Kind: "git_repo", Name: "test"},
			Config: config,
			Root:   root,
			State:  state,
		},
		Dir: t.TempDir(),
		Env: append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, extraEnv...),
		Log: &bytes.Buffer{},
	}
}

// build runs a build that must succeed.
func build(t *testing.T, b *kind.Build) *kind.Result {
	t.Helper()
	res, err := testRepo().Build(context.Background(), b)
	if err != nil {
		t.Fatalf("Build: %v\nlog:\n%s", err, b.Log)
	}
	return res
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fileAllowed lets git use file:// urls for submodules, through the
// environment as a user would.
var fileAllowed = []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=protocol.file.allow", "GIT_CONFIG_VALUE_0=always"}

// protocolV0 makes git speak protocol version 0, whose servers refuse to
// send a commit that no branch or tag points at.
var protocolV0 = []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=protocol.version", "GIT_CONFIG_VALUE_0=0"}
