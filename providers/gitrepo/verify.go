package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/kilnbuild/kiln/engine/filelock"
	"github.com/kilnbuild/kiln/engine/kind"
)

// Verify recomputes the patched tree id of the checkout rec.Dir and reports
// drift when HEAD moved or the tree differs from the recorded one.
func (r *Repo) Verify(ctx context.Context, n *kind.Node, rec *kind.Record) (string, error) {
	if rec == nil || rec.Dir == "" {
		return "no checkout recorded", nil
	}
	dir, err := filepath.Abs(rec.Dir)
	if err != nil {
		return "", fmt.Errorf("verify git_repo checkout %s: %w", rec.Dir, err)
	}
	gitDir := filepath.Join(dir, ".git")
	if _, err := os.Stat(gitDir); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "checkout missing: " + dir, nil
		}
		return "", fmt.Errorf("verify git_repo checkout %s: %w", dir, err)
	}
	recorded := rec.Attrs["tree"]
	if recorded == "" {
		return "the record holds no tree id; rebuild to record one", nil
	}
	g, err := r.command(verifyEnv(), io.Discard)
	if err != nil {
		return "", err
	}
	l, err := filelock.Wait(ctx, filepath.Join(gitDir, "kiln-verify.lock"))
	if err != nil {
		return "", fmt.Errorf("verify git_repo checkout %s: %w", dir, err)
	}
	defer l.Unlock()
	co := &checkout{dir: dir, git: g}
	head, err := co.head(ctx)
	if err != nil {
		return "", err
	}
	if want := rec.Attrs["commit"]; want != "" && head != want {
		return fmt.Sprintf("HEAD moved from %s to %s", want, head), nil
	}
	tree, err := patchedTree(ctx, g, dir)
	if err != nil {
		return "", err
	}
	if tree == recorded {
		return "", nil
	}
	return "working tree changed: " + treeChanges(ctx, g, dir, recorded, tree), nil
}

// verifyEnv is the environment git gets when verifying: the contract gives
// Verify no build environment, so it is PATH and HOME of this process only.
func verifyEnv() []string {
	var env []string
	for _, name := range []string{"PATH", "HOME"} {
		if v, ok := os.LookupEnv(name); ok {
			env = append(env, name+"="+v)
		}
	}
	return env
}
