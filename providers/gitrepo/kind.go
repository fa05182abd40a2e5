package gitrepo

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/kind/attr"
	"github.com/zclconf/go-cty/cty"
)

// Repo is the git_repo node kind.
type Repo struct {
	// Git is the git binary: a name looked up in the build's PATH, or a path.
	Git string
	// Patch is GNU patch, which applies what git apply refuses: a name looked
	// up in the build's PATH, or a path.
	Patch string
	// UserEnv returns kiln's own environment, from which git takes the
	// user's configuration and network settings (see userVars); nil means
	// os.Environ.
	UserEnv func() []string
	// KillGrace is how long git gets between SIGTERM and SIGKILL when a
	// build is cancelled.
	KillGrace time.Duration
}

var (
	_ kind.Kind     = (*Repo)(nil)
	_ kind.Verifier = (*Repo)(nil)
	_ kind.KeyFiles = (*Repo)(nil)
)

// New returns the git_repo kind with the git of the build's PATH.
func New() kind.Kind { return &Repo{Git: "git", Patch: "patch", KillGrace: 5 * time.Second} }

// Name is the block type.
func (r *Repo) Name() string { return "git_repo" }

// Version enters every key of a git_repo node.
func (r *Repo) Version() string { return "1" }

// Check reports a configuration the build would refuse: an abbreviated
// commit, a commit with a ref, neither, a ref that is not a name.
func (r *Repo) Check(n *kind.Node) error {
	_, err := decodeConfig(n.Config)
	return err
}

// Spec is the schema of a git_repo block (see Schema).
func (r *Repo) Spec() hcldec.ObjectSpec { return blockSchema.Spec() }

// Exports are commit (known when the configuration pins one, unknown when
// only a ref is given) and url.
func (r *Repo) Exports(n *kind.Node) map[string]cty.Value {
	out := map[string]cty.Value{
		"commit": cty.UnknownVal(cty.String),
		"url":    cty.UnknownVal(cty.String),
	}
	if s, ok := attr.KnownString(n.Config, "url"); ok {
		out["url"] = cty.StringVal(s)
	}
	if s, ok := attr.KnownString(n.Config, "commit"); ok {
		if sha, err := checkCommit(s); err == nil {
			out["commit"] = cty.StringVal(sha)
		}
	}
	return out
}

// KeyFiles are the patch files, whose contents enter the key.
func (r *Repo) KeyFiles(n *kind.Node) []string {
	var files []string
	for _, p := range attr.KnownStrings(n.Config, "patches") {
		if p != "" {
			files = append(files, p)
		}
	}
	return files
}

// Build checks out the commit into b.Dir, applies the patches and returns
// the digest of the result.
func (r *Repo) Build(ctx context.Context, b *kind.Build) (*kind.Result, error) {
	c, err := decodeConfig(b.Config)
	if err != nil {
		return nil, err
	}
	if b.Dir == "" || b.State == "" {
		return nil, fmt.Errorf("git_repo %s: the build has no output folder or state folder", b.Addr)
	}
	patches, err := readPatches(b.Root, c.Patches)
	if err != nil {
		return nil, err
	}
	g, err := r.command(b.Env, b.Log)
	if err != nil {
		return nil, err
	}
	state, err := filepath.Abs(b.State)
	if err != nil {
		return nil, fmt.Errorf("git_repo state folder %s: %w", b.State, err)
	}
	dir, err := filepath.Abs(b.Dir)
	if err != nil {
		return nil, fmt.Errorf("git_repo output folder %s: %w", b.Dir, err)
	}
	url := resolveURL(b.Root, c.URL)
	co := &checkout{dir: dir, url: url, git: g}
	if err := co.init(ctx); err != nil {
		return nil, err
	}
	sha := c.Commit
	if sha == "" {
		if sha, err = resolveRef(ctx, g, dir, url, c.Ref); err != nil {
			return nil, err
		}
	}
	m := &mirror{url: url, path: mirrorPath(state, url), git: g}
	if err := co.fetchFrom(ctx, m, sha); err != nil {
		return nil, err
	}
	if err := co.checkout(ctx, sha); err != nil {
		return nil, err
	}
	if c.Submodules {
		if err := co.submodules(ctx, sha); err != nil {
			return nil, err
		}
	}
	if c.LFS {
		if err := co.lfs(ctx, sha); err != nil {
			return nil, err
		}
	}
	var report []string
	if len(patches) > 0 {
		gnu := newPatchTool(r.Patch, b.Env, g.log, g.grace)
		for _, p := range patches {
			a, err := co.apply(ctx, sha, p, gnu)
			if err != nil {
				return nil, err
			}
			line := a.summary(p.label)
			fmt.Fprintf(g.log, "kiln: applied patch %s\n", line)
			report = append(report, line)
		}
	}
	tree, err := patchedTree(ctx, g, dir)
	if err != nil {
		return nil, err
	}
	attrs := map[string]string{"commit": sha, "tree": tree}
	if len(report) > 0 {
		attrs["patches"] = strings.Join(report, "\n")
	}
	return &kind.Result{
		Digest:  digestOf(sha, tree, patches),
		Attrs:   attrs,
		Exports: map[string]cty.Value{"commit": cty.StringVal(sha), "url": cty.StringVal(c.URL)},
	}, nil
}

// command prepares the git runner for env, writing git's messages to log.
func (r *Repo) command(env []string, log io.Writer) (*gitCommand, error) {
	name := r.Git
	if name == "" {
		name = "git"
	}
	user := r.UserEnv
	if user == nil {
		user = os.Environ
	}
	env = gitEnv(env, user())
	path, err := lookPath(name, env)
	if err != nil {
		return nil, fmt.Errorf("git_repo needs git: %w", err)
	}
	if log == nil {
		log = io.Discard
	}
	grace := r.KillGrace
	if grace <= 0 {
		grace = 5 * time.Second
	}
	return &gitCommand{path: path, env: env, log: log, grace: grace}, nil
}
