package gitrepo

import (
	"context"
	"fmt"
	"strings"
)

// checkout is the working repository in a build's output folder.
type checkout struct {
	dir string
	url string
	git *gitCommand
}

// init makes dir an empty repository whose origin is the real url, so that
// relative submodule urls and Git LFS resolve against it.
func (c *checkout) init(ctx context.Context) error {
	steps := [][]string{
		{"-c", "init.defaultBranch=main", "init", "--quiet"},
		{"remote", "add", "--", "origin", c.url},
	}
	for _, args := range steps {
		if _, err := c.git.run(ctx, c.dir, nil, args...); err != nil {
			return fmt.Errorf("prepare checkout of %s in %s: %w", c.url, c.dir, err)
		}
	}
	return nil
}

// fetchFrom brings the commit into the mirror if needed and fetches it from
// there, holding the mirror's lock throughout.
func (c *checkout) fetchFrom(ctx context.Context, m *mirror, sha string) error {
	l, err := m.lock(ctx)
	if err != nil {
		return err
	}
	defer l.Unlock()
	if err := m.ensureCommit(ctx, sha); err != nil {
		return err
	}
	if _, err := c.git.run(ctx, c.dir, nil, "fetch", "--quiet", "--no-tags", "--depth", "1", "--", "file://"+m.path, sha); err != nil {
		return fmt.Errorf("fetch commit %s from the git mirror %s: %w; remove the mirror to rebuild it", sha, m.path, err)
	}
	return nil
}

// checkout detaches HEAD at the fetched commit and checks that it is sha.
func (c *checkout) checkout(ctx context.Context, sha string) error {
	if _, err := c.git.run(ctx, c.dir, nil, "checkout", "--quiet", "--detach", "FETCH_HEAD"); err != nil {
		return fmt.Errorf("check out %s at %s: %w", c.url, sha, err)
	}
	head, err := c.head(ctx)
	if err != nil {
		return err
	}
	if head != sha {
		return fmt.Errorf("check out %s: HEAD is %s, not the requested commit %s", c.url, head, sha)
	}
	return nil
}

// head returns the commit HEAD points at.
func (c *checkout) head(ctx context.Context) (string, error) {
	out, err := c.git.run(ctx, c.dir, nil, "rev-parse", "--verify", "HEAD")
	if err != nil {
		return "", fmt.Errorf("read HEAD of the checkout in %s: %w", c.dir, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// submodules checks out every submodule, recursively, at depth 1.
func (c *checkout) submodules(ctx context.Context, sha string) error {
	if _, err := c.git.run(ctx, c.dir, nil, "submodule", "update", "--init", "--recursive", "--depth", "1"); err != nil {
		return fmt.Errorf("submodules of %s at %s: %w; check that the submodule urls in .gitmodules are reachable", c.url, sha, err)
	}
	return nil
}

// lfs replaces Git LFS pointer files with their contents.
func (c *checkout) lfs(ctx context.Context, sha string) error {
	if _, err := c.git.run(ctx, c.dir, nil, "lfs", "version"); err != nil {
		if ctx.Err() != nil {
			return err
		}
		return fmt.Errorf("git_repo %s sets lfs = true but git-lfs is not installed (git lfs version failed: %v): install git-lfs (for example apt-get install git-lfs) or set lfs = false", c.url, err)
	}
	// The local install writes the lfs filter into .git/config, so the
	// private index of patchedTree stores pointers, as the commit does.
	for _, args := range [][]string{{"lfs", "install", "--local", "--skip-repo"}, {"lfs", "pull"}} {
		if _, err := c.git.run(ctx, c.dir, nil, args...); err != nil {
			return fmt.Errorf("git lfs files of %s at %s: %w; check access to the LFS server of the repository", c.url, sha, err)
		}
	}
	return nil
}
