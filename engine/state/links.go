package state

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/kilnbuild/kiln/engine/nolink"
)

// FolderLinkError refuses a state folder that is a symbolic link to a place
// kiln must not fill with its state.
type FolderLinkError struct {
	Dir    string // the state folder, a link
	Target string // where it leads
	Why    string // what is wrong with the target
	Advice string
}

func (e *FolderLinkError) Error() string {
	return fmt.Sprintf("the state folder %s is a symbolic link to %s, %s: %s", e.Dir, e.Target, e.Why, e.Advice)
}

// FolderLink says where the state folder dir leads when dir is a symbolic
// link: "" when it is a folder of its own or does not exist yet. A link is
// accepted to a folder that is empty or already holds kiln's state — the way
// to keep a pipeline's state, store and logs on a bigger disk — and refused
// (a *FolderLinkError) to anything else: nothing, a file, or a folder of
// other files, which kiln would fill with its own.
func FolderLink(dir string) (string, error) {
	fi, err := os.Lstat(dir)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return "", nil
	}
	target, err := filepath.EvalSymlinks(dir)
	if err != nil {
		to, _ := os.Readlink(dir)
		return "", &FolderLinkError{Dir: dir, Target: to, Why: "which does not exist",
			Advice: fmt.Sprintf("create the folder it points at (mkdir -p %s), or remove the link (rm %s) so kiln makes the state folder here", to, dir)}
	}
	away := fmt.Sprintf("point the link at an empty folder or at one holding kiln's state, or remove it (rm %s) so kiln makes the state folder here", dir)
	if fi, err := os.Stat(target); err != nil || !fi.IsDir() {
		return "", &FolderLinkError{Dir: dir, Target: target, Why: "which is not a folder", Advice: away}
	}
	des, err := os.ReadDir(target)
	if err != nil {
		return "", fmt.Errorf("reading the state folder %s (a link to %s): %w", dir, target, err)
	}
	if len(des) > 0 && !holdsState(target, des) {
		return "", &FolderLinkError{Dir: dir, Target: target, Why: "a folder that holds other files and no kiln state", Advice: away}
	}
	return target, nil
}

// holdsState reports whether the folder dir, whose entries are des, is a
// state folder: it has kiln's lock, snapshot, journal or store, or the
// .gitignore MakeDir writes.
func holdsState(dir string, des []fs.DirEntry) bool {
	for _, de := range des {
		switch de.Name() {
		case lockName, snapshotName, journalName, "store":
			return true
		case ".gitignore":
			if b, err := os.ReadFile(filepath.Join(dir, ".gitignore")); err == nil && strings.HasPrefix(string(b), gitignoreText[:strings.IndexByte(gitignoreText, '\n')]) {
				return true
			}
		}
	}
	return false
}

// checkFolder refuses a state folder kiln must not write in: dir a link to
// an unexpected place (FolderLink), or one holding a symbolic link at its
// top, where kiln makes none — its links live in out/, logs/ and tmp/ — so
// one there was planted, and writing the file of that name would write what
// it points at (a *nolink.Error).
func checkFolder(dir string) error {
	if _, err := FolderLink(dir); err != nil {
		return err
	}
	des, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading the state folder %s: %w", dir, err)
	}
	for _, de := range des {
		if de.Type()&fs.ModeSymlink == 0 {
			continue
		}
		if err := nolink.Check(filepath.Join(dir, de.Name())); err != nil {
			var le *nolink.Error
			if errors.As(err, &le) {
				le.Hint = "kiln makes no link at the top of its state folder; to keep the state on another disk, link the whole state folder instead"
			}
			return err
		}
	}
	return nil
}
