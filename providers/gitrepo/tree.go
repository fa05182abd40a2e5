package gitrepo

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/kilnbuild/kiln/engine/hash"
)

// privateIndex is the index file, inside .git, through which the patched
// working tree is hashed; the real index is never touched. Its stat
// information makes a later hash of an unchanged tree read no file.
const privateIndex = "kiln-index"

// patchedTree returns the tree id of the working tree in dir as it is now,
// patches included, ignored files excluded.
func patchedTree(ctx context.Context, g *gitCommand, dir string) (string, error) {
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(dir, ".git", privateIndex)}
	if _, err := g.run(ctx, dir, env, "add", "--all"); err != nil {
		return "", fmt.Errorf("hash the working tree in %s: %w", dir, err)
	}
	out, err := g.run(ctx, dir, env, "write-tree")
	if err != nil {
		return "", fmt.Errorf("hash the working tree in %s: %w", dir, err)
	}
	tree := strings.TrimSpace(string(out))
	if tree == "" {
		return "", fmt.Errorf("hash the working tree in %s: git write-tree printed no tree id", dir)
	}
	return tree, nil
}

// digestOf is the digest of a checkout: the commit, the patched tree and
// each patch, as labelled lines.
func digestOf(sha, tree string, patches []patchFile) string {
	k := hash.NewKey()
	k.Add("commit", sha)
	k.Add("tree", tree)
	for _, p := range patches {
		k.Add("patch", p.label+" "+p.sum)
	}
	return k.Sum().String()
}

// treeChanges describes how tree differs from the recorded one, as
// "git status --short" would: a status letter and a path, a few lines.
func treeChanges(ctx context.Context, g *gitCommand, dir, recorded, tree string) string {
	out, err := g.run(ctx, dir, nil, "diff-tree", "-r", "--no-renames", "--name-status", recorded, tree)
	if err != nil {
		// The recorded tree object is gone; fall back to the real index.
		if out, err = g.run(ctx, dir, nil, "status", "--short"); err != nil {
			return "tree " + recorded + " is now " + tree
		}
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			status, path, _ := strings.Cut(l, "\t")
			lines = append(lines, strings.TrimSpace(status+" "+path))
		}
	}
	if len(lines) == 0 {
		return "tree " + recorded + " is now " + tree
	}
	const shown = 5
	more := ""
	if len(lines) > shown {
		more = fmt.Sprintf(" (and %d more)", len(lines)-shown)
		lines = lines[:shown]
	}
	return strings.Join(lines, ", ") + more
}
