package gitrepo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kilnbuild/kiln/engine/filelock"
	"github.com/kilnbuild/kiln/engine/hash"
)

// mirror is the bare repository that caches one url's objects.
type mirror struct {
	url  string
	path string // <state>/git/<sha256(url)[:16]>.git
	git  *gitCommand
}

// mirrorPath is where the mirror of url lives under the state folder.
func mirrorPath(state, url string) string {
	return filepath.Join(state, "git", hash.Bytes([]byte(url)).String()[:16]+".git")
}

// lock takes the mirror's flock; every use of the mirror holds it.
func (m *mirror) lock(ctx context.Context) (*filelock.Lock, error) {
	if err := os.MkdirAll(filepath.Dir(m.path), 0o755); err != nil {
		return nil, fmt.Errorf("create git mirror folder: %w", err)
	}
	l, err := filelock.Wait(ctx, m.path+".lock")
	if err != nil {
		return nil, fmt.Errorf("git mirror of %s: %w", m.url, err)
	}
	return l, nil
}

// ensureCommit makes sure the commit is in the mirror, fetching it from the
// url only when it is not. The caller holds the lock.
func (m *mirror) ensureCommit(ctx context.Context, sha string) error {
	if err := m.create(ctx); err != nil {
		return err
	}
	if m.objectType(ctx, sha) == "commit" {
		return nil
	}
	keep := "refs/kiln/" + sha
	_, shallowErr := m.git.run(ctx, m.path, nil, "fetch", "--no-tags", "--depth", "1", "--", m.url, sha+":"+keep)
	if err := ctx.Err(); err != nil {
		return err
	}
	if shallowErr == nil {
		return m.checkCommit(ctx, sha)
	}
	// The server may refuse a commit that no branch or tag points at: fetch
	// everything it advertises and look again.
	args := []string{"fetch", "--no-tags"}
	if out, err := m.git.run(ctx, m.path, nil, "rev-parse", "--is-shallow-repository"); err == nil && strings.TrimSpace(string(out)) == "true" {
		args = append(args, "--unshallow")
	}
	args = append(args, "--", m.url, "+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*")
	if _, err := m.git.run(ctx, m.path, nil, args...); err != nil {
		// The log holds both failures; the full fetch's says more.
		return fmt.Errorf("fetch commit %s from %s: %w; check the url, the network and your access to the repository", sha, m.url, err)
	}
	if m.objectType(ctx, sha) == "" {
		return fmt.Errorf("commit %s not found in %s (not fetchable by SHA, and on no branch or tag): check the SHA, or use ref for a branch or tag", sha, m.url)
	}
	if err := m.checkCommit(ctx, sha); err != nil {
		return err
	}
	if _, err := m.git.run(ctx, m.path, nil, "update-ref", keep, sha); err != nil {
		return fmt.Errorf("record commit %s in the git mirror %s: %w", sha, m.path, err)
	}
	return nil
}

// checkCommit says so when the object sha in the mirror is not a commit
// (the SHA of an annotated tag or a tree, say).
func (m *mirror) checkCommit(ctx context.Context, sha string) error {
	switch t := m.objectType(ctx, sha); t {
	case "commit":
		return nil
	case "":
		return fmt.Errorf("commit %s not found in the git mirror %s after fetching it from %s; remove the mirror and retry", sha, m.path, m.url)
	default:
		return fmt.Errorf("%s in %s is a %s, not a commit: give the commit's SHA (git rev-parse %s^{commit} in a clone prints it)", sha, m.url, t, sha)
	}
}

// objectType returns the type of the object sha in the mirror, or "" when
// the mirror lacks it.
func (m *mirror) objectType(ctx context.Context, sha string) string {
	out, err := m.git.quiet().run(ctx, m.path, nil, "cat-file", "-t", sha)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// create makes the bare mirror if it does not exist yet. It is built under a
// temporary name and renamed, so a half-made mirror is never used.
func (m *mirror) create(ctx context.Context) error {
	if _, err := os.Stat(filepath.Join(m.path, "HEAD")); err == nil {
		return nil
	}
	if err := os.RemoveAll(m.path); err != nil {
		return fmt.Errorf("remove broken git mirror %s: %w", m.path, err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(m.path), filepath.Base(m.path)+".new-")
	if err != nil {
		return fmt.Errorf("create git mirror of %s: %w", m.url, err)
	}
	defer os.RemoveAll(tmp)
	steps := [][]string{
		{"init", "--quiet", "--bare", tmp},
		// gc in the foreground, so it never runs without the mirror's lock.
		{"--git-dir", tmp, "config", "gc.autoDetach", "false"},
	}
	for _, args := range steps {
		if _, err := m.git.run(ctx, filepath.Dir(m.path), nil, args...); err != nil {
			return fmt.Errorf("create git mirror of %s: %w", m.url, err)
		}
	}
	if err := os.Rename(tmp, m.path); err != nil {
		return fmt.Errorf("create git mirror of %s: %w", m.url, err)
	}
	return nil
}

// resolveRef asks the url which commit ref names, the way git rev-parse
// would: an exact full ref, then a tag (peeled to its commit), then a branch.
// dir is a repository without configuration of its own (a fresh checkout).
func resolveRef(ctx context.Context, g *gitCommand, dir, url, ref string) (string, error) {
	out, err := g.run(ctx, dir, nil, "ls-remote", "--", url, ref, ref+"^{}")
	if err != nil {
		if ctx.Err() != nil {
			return "", err
		}
		return "", fmt.Errorf("resolve ref %s of %s: %w; check the url, the network and your access to the repository", ref, url, err)
	}
	refs := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		sha, name, ok := strings.Cut(strings.TrimSpace(line), "\t")
		if ok && fullSHA.MatchString(sha) {
			refs[name] = strings.ToLower(sha)
		}
	}
	for _, name := range refCandidates(ref) {
		if sha, ok := refs[name+"^{}"]; ok {
			return sha, nil
		}
		if sha, ok := refs[name]; ok {
			return sha, nil
		}
	}
	return "", fmt.Errorf("ref %s not found in %s: give an existing branch or tag (git ls-remote %s lists them), or a full commit", ref, url, shellWord(url))
}

// refCandidates are the full ref names ref may stand for, in git's order.
func refCandidates(ref string) []string {
	if strings.HasPrefix(ref, "refs/") || ref == "HEAD" {
		return []string{ref}
	}
	return []string{"refs/" + ref, "refs/tags/" + ref, "refs/heads/" + ref}
}
