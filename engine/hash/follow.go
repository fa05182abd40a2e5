package hash

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// maxLinkDepth bounds how many followed links to folders may nest: past
// it, a chain of links is refused as a loop, whatever the paths say.
const maxLinkDepth = 40

// LinkError says a symlink that TreeOptions.FollowLinks would follow
// leads nowhere: it dangles (its target does not exist), or it is part of
// a loop (its target is itself a link back, or a folder that holds the
// link).
type LinkError struct {
	Path   string // the symlink
	Target string // its text, verbatim
	Loop   bool   // a loop; otherwise it dangles
}

func (e *LinkError) Error() string {
	if e.Loop {
		return fmt.Sprintf("hash %s: is a symlink loop (%s leads back to itself or to a folder that holds it); remove the link, or point it at a file or a folder outside", e.Path, e.Target)
	}
	return fmt.Sprintf("hash %s: is a symlink to %s, which does not exist; create the target, or remove the link", e.Path, e.Target)
}

// followLink returns the entry of the symlink at abs (rel in its tree),
// followed: a link to a regular file is an 'L' entry whose file hashFiles
// hashes; a link to a folder carries that folder's tree digest, hashed
// here with the same options. holder is the real path of the folder that
// holds the link, which the target must not contain (nor may any folder
// o.open lists): following it would reach the link again.
func followLink(abs, rel, holder string, c *StatCache, o TreeOptions) (Entry, error) {
	target, info, err := followStat(abs)
	if err != nil {
		return Entry{}, err
	}
	e := Entry{Path: rel, Kind: 'L', Target: target}
	switch mode := info.Mode(); {
	case mode.IsRegular():
		e.To = 'f' // hashed by hashFiles, with the other files
		return e, nil
	case !mode.IsDir():
		return Entry{}, &NotRegularError{Path: abs, Mode: mode, Link: target}
	}
	real, open, err := enter(abs, target, holder, o.open)
	if err != nil {
		return Entry{}, err
	}
	sub := TreeOptions{Workers: o.Workers, Read: o.Read, FollowLinks: true, open: open}
	if e.Digest, err = TreeWith(real, c, sub); err != nil {
		return Entry{}, err
	}
	e.To = 'd'
	return e, nil
}

// followStat returns the text of the symlink at abs and the stat result of what
// it leads to; a *LinkError when it leads nowhere.
func followStat(abs string) (target string, info fs.FileInfo, err error) {
	if target, err = os.Readlink(abs); err != nil {
		return "", nil, fmt.Errorf("hash tree: %w", err)
	}
	info, err = os.Stat(abs)
	switch {
	case errors.Is(err, syscall.ELOOP):
		return "", nil, &LinkError{Path: abs, Target: target, Loop: true}
	case errors.Is(err, fs.ErrNotExist):
		return "", nil, &LinkError{Path: abs, Target: target}
	case err != nil:
		return "", nil, fmt.Errorf("hash tree: %w", err)
	}
	return target, info, nil
}

// enter returns the real path of the folder the link at abs (text target)
// leads to, and the open folders below it: open and holder, the real path
// of the folder that holds the link. A target that is, or holds, one of
// them is a loop.
func enter(abs, target, holder string, open []string) (string, []string, error) {
	real, err := realFolder(abs)
	if err != nil {
		return "", nil, err
	}
	open = append(slices.Clip(open), holder)
	if len(open) > maxLinkDepth || slices.ContainsFunc(open, func(f string) bool { return holds(real, f) }) {
		return "", nil, &LinkError{Path: abs, Target: target, Loop: true}
	}
	return real, open, nil
}

// holds reports whether the folder dir is p or one of p's parents; both
// are clean absolute paths.
func holds(dir, p string) bool {
	return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/")
}

// realFolder returns the real path of the folder at abs (its symlinks
// resolved), for followLink's loop check.
func realFolder(abs string) (string, error) {
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("hash tree: %w", err)
	}
	return real, nil
}
