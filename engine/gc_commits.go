package engine

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path"
	"strings"

	"github.com/kilnbuild/kiln/engine/lockfile"
)

// CommitKeys reads kiln.lock.hcl, beside the pipeline in the folder root,
// at the last n commits of HEAD and at each of refs (branches, tags,
// commits), with git, and returns the node keys they name with why: for
// kiln gc, which keeps those results, as DVC's gc --all-commits keeps what
// its history names. A commit without a lock names nothing; a lock that
// does not parse at a commit is skipped and said in skipped.
func CommitKeys(ctx context.Context, root string, n int, refs []string) (keys map[string]string, skipped []string, err error) {
	prefix, err := git(ctx, root, "rev-parse", "--show-prefix")
	if err != nil {
		return nil, nil, fmt.Errorf("-keep-commits and -keep-ref read kiln.lock.hcl with git: %w", err)
	}
	file := path.Join(strings.TrimSpace(string(prefix)), lockfile.FileName)
	type commit struct{ id, name string }
	var commits []commit
	if n > 0 {
		out, err := git(ctx, root, "rev-list", fmt.Sprintf("--max-count=%d", n), "HEAD")
		if err != nil {
			return nil, nil, fmt.Errorf("-keep-commits: %w", err)
		}
		for i, id := range strings.Fields(string(out)) {
			commits = append(commits, commit{id, fmt.Sprintf("HEAD~%d", i)})
		}
	}
	for _, ref := range refs {
		out, err := git(ctx, root, "rev-parse", "--verify", "--quiet", "--end-of-options", ref+"^{commit}")
		if err != nil {
			return nil, nil, fmt.Errorf("-keep-ref %s: no such commit, branch or tag in the repository at %s", ref, root)
		}
		commits = append(commits, commit{strings.TrimSpace(string(out)), ref})
	}
	keys = map[string]string{}
	for _, c := range commits {
		src, err := git(ctx, root, "show", c.id+":"+file)
		if err != nil {
			continue // no lock at that commit
		}
		where := fmt.Sprintf("%s at %s (%s)", lockfile.FileName, c.name, c.id[:min(12, len(c.id))])
		lf, _, diags := lockfile.Parse(src, c.name+":"+file)
		if diags.HasErrors() {
			skipped = append(skipped, where+": "+diags.Errs()[0].Error())
			continue
		}
		for a, node := range lf.Nodes {
			if _, seen := keys[node.Key]; !seen && node.Key != "" {
				keys[node.Key] = "named by " + where + " for " + a
			}
		}
	}
	return keys, skipped, nil
}

// git runs git in dir without prompts, with messages in English.
func git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return nil, fmt.Errorf("git %s: %s", args[0], msg)
		}
		return nil, fmt.Errorf("git %s: %w", args[0], err)
	}
	return stdout.Bytes(), nil
}
