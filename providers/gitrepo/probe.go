package gitrepo

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/kilnbuild/kiln/engine/kind"
)

var _ kind.Prober = (*Repo)(nil)

// Probe finds, at plan time, every program the build will run, on the PATH
// the build searches (the node's environment when the engine knows it, else
// kiln's own): git always, git-lfs with lfs = true, and GNU patch when there
// are patches, since git apply refuses some patches that GNU patch applies
// (a last context line without its newline) and which ones is known only
// once the checkout is there. A missing one blocks the node, named with the
// package that ships it; nothing enters the key.
func (r *Repo) Probe(_ context.Context, n *kind.Node, _ *kind.Record) (*kind.Probe, error) {
	c, err := decodeConfig(n.Config)
	if err != nil {
		// Check reports a bad configuration; an unknown one is probed
		// when it is known.
		return nil, nil
	}
	env := n.Env
	if env == nil {
		env = []string{"PATH=" + os.Getenv("PATH")}
	}
	var missing []string
	for _, t := range r.tools(c) {
		if _, err := lookPath(t.name, env); err != nil {
			missing = append(missing, t.why+": "+err.Error())
		}
	}
	if len(missing) == 0 {
		return nil, nil
	}
	return &kind.Probe{Blocked: fmt.Sprintf("git_repo %s needs %s", n.Addr.Name, strings.Join(missing, "; "))}, nil
}

// tool is a program a build runs and what it is for.
type tool struct {
	name string
	why  string
}

// tools are the programs a build of c runs.
func (r *Repo) tools(c config) []tool {
	git, patch := r.Git, r.Patch
	if git == "" {
		git = "git"
	}
	if patch == "" {
		patch = "patch"
	}
	ts := []tool{{git, "git"}}
	if c.LFS {
		ts = append(ts, tool{"git-lfs", "git-lfs (lfs = true)"})
	}
	if len(c.Patches) > 0 {
		ts = append(ts, tool{patch, "GNU patch, which applies the patches git apply refuses"})
	}
	return ts
}
