package run

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// InPlaceOutputs resolves declared in-place outputs (relative to root) and
// refuses any that leave the pipeline folder, through .. or through a
// symlink, or that lie in the state folder. With mustExist, every output
// must exist (after a run); without, only existing parents are checked for
// symlinks (before a run).
func InPlaceOutputs(root, stateDir string, outs []string, mustExist bool) ([]string, error) {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, err
	}
	var abs []string
	for _, o := range outs {
		p := o
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		p = filepath.Clean(p)
		if !within(root, p) || p == root || within(stateDir, p) {
			return nil, fmt.Errorf("output %s is outside the pipeline folder %s: declare outputs inside it, or write to $KILN_OUT", o, root)
		}
		real, err := evalExisting(p)
		if err != nil {
			return nil, err
		}
		if mustExist {
			if _, err := os.Lstat(p); err != nil {
				return nil, fmt.Errorf("output %s was not created by the command", o)
			}
		}
		if !within(realRoot, real) {
			return nil, fmt.Errorf("output %s leads outside the pipeline folder through a symlink (to %s)", o, real)
		}
		abs = append(abs, p)
	}
	return abs, nil
}

// evalExisting resolves symlinks in the longest existing prefix of p.
func evalExisting(p string) (string, error) {
	rest := ""
	for {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !os.IsNotExist(err) {
			return "", err
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(p, rest), nil
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}
