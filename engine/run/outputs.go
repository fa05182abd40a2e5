package run

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
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

// A sealed run may read the result of every node it depends on, directly or
// through others, so its sandbox and its guard need the real folder behind
// each upstream's stable link: in a deep pipeline, hundreds per node.
// Resolving a link walks every folder of its path (an lstat each, and a
// readlink), so linkTargets remembers each link's target by the link itself:
// kiln replaces a stable link by renaming a new one over it, which makes it
// another file (os.SameFile) with its own time, so a link that is the same
// file with the same time as before still leads where it led. One lstat per
// upstream is left.
var linkTargets = struct {
	sync.Mutex
	m map[string]linkTarget
}{m: map[string]linkTarget{}}

type linkTarget struct {
	link   os.FileInfo
	target string
}

// maxLinkTargets bounds linkTargets; it starts afresh when full.
const maxLinkTargets = 1 << 17

// resolveLink is filepath.EvalSymlinks of a stable link, remembered.
func resolveLink(link string) (string, error) {
	fi, err := os.Lstat(link)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return filepath.EvalSymlinks(link)
	}
	linkTargets.Lock()
	t, ok := linkTargets.m[link]
	linkTargets.Unlock()
	if ok && os.SameFile(t.link, fi) && t.link.ModTime().Equal(fi.ModTime()) {
		return t.target, nil
	}
	target, err := filepath.EvalSymlinks(link)
	if err != nil {
		return "", err
	}
	linkTargets.Lock()
	if len(linkTargets.m) >= maxLinkTargets {
		clear(linkTargets.m)
	}
	linkTargets.m[link] = linkTarget{link: fi, target: target}
	linkTargets.Unlock()
	return target, nil
}
