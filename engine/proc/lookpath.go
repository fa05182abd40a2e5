package proc

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// LookPath finds the program a command runs: a name with a slash is taken
// from dir (where the command runs) when relative; a bare name is searched
// on the PATH of env, not kiln's own. The path returned is the one that runs,
// not resolved through symlinks.
func LookPath(prog, dir string, env []string) (string, error) {
	if strings.Contains(prog, "/") {
		p := prog
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("command %s not found in %s: %w", prog, dir, err)
		}
		return p, nil
	}
	pathVar := EnvValue(env, "PATH")
	for _, d := range filepath.SplitList(pathVar) {
		if d == "" {
			d = "."
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(dir, d)
		}
		p := filepath.Join(d, prog)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("command %q not found on PATH (%s): install it, or give its full path", prog, pathVar)
}

// EnvValue is the value of name in a K=V list (the last one wins), or "".
func EnvValue(env []string, name string) string {
	v := ""
	for _, kv := range env {
		if s, ok := strings.CutPrefix(kv, name+"="); ok {
			v = s
		}
	}
	return v
}
