package engine

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/kilnbuild/kiln/engine/config"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// runVars are the pipeline's variables for the record of a run, so that
// kiln runs and the report say what a run was run with
// (learning_rate=0.002): a string as it is, any other value as JSON, a
// sensitive one as "(sensitive)" only.
func runVars(p *config.Pipeline) map[string]string {
	if len(p.Variables) == 0 {
		return nil
	}
	out := make(map[string]string, len(p.Variables))
	for name, v := range p.Variables {
		out[name] = varText(v)
	}
	return out
}

func varText(v *config.Variable) string {
	if v.Sensitive {
		return "(sensitive)"
	}
	val, marks := v.Value.UnmarkDeep()
	switch {
	case len(marks) > 0:
		return "(sensitive)"
	case val == cty.NilVal || val.IsNull():
		return "null"
	case !val.IsWhollyKnown():
		return "(unknown)"
	case val.Type() == cty.String:
		return val.AsString()
	}
	b, err := ctyjson.Marshal(val, val.Type())
	if err != nil {
		return "(cannot encode)"
	}
	return string(b)
}

// gitCommit is the commit checked out in the git work tree holding root,
// read from .git without running git (an apply must stay fast); "" outside
// a repository or when HEAD cannot be read. A run records it, so that kiln
// metrics diff can name runs by git revision.
func gitCommit(root string) string {
	dir := root
	for {
		g := filepath.Join(dir, ".git")
		if fi, err := os.Stat(g); err == nil {
			if !fi.IsDir() {
				return "" // a worktree or submodule's .git file: not read here
			}
			return headCommit(g)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

func headCommit(gitDir string) string {
	head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return ""
	}
	h := strings.TrimSpace(string(head))
	ref, ok := strings.CutPrefix(h, "ref: ")
	if !ok {
		return hexCommit(h)
	}
	if b, err := os.ReadFile(filepath.Join(gitDir, filepath.FromSlash(ref))); err == nil {
		return hexCommit(strings.TrimSpace(string(b)))
	}
	packed, err := os.ReadFile(filepath.Join(gitDir, "packed-refs"))
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(packed), "\n") {
		if id, name, ok := strings.Cut(line, " "); ok && name == ref {
			return hexCommit(id)
		}
	}
	return ""
}

func hexCommit(s string) string {
	if len(s) != 40 && len(s) != 64 {
		return ""
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return ""
		}
	}
	return s
}
