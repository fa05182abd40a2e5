package state

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// MakeDir creates the state folder dir if needed. A folder it creates gets a
// .gitignore holding "*", so the state, the store and the logs never end up
// in the pipeline's repository (as DVC does for .dvc/tmp); a .gitignore the
// user wrote, or removed on purpose after the first run, is left alone. A
// dir that is a symbolic link must lead where FolderLink accepts it; an
// empty folder it leads to gets the .gitignore too, which marks it as a
// state folder from then on.
func MakeDir(dir string) error {
	target, err := FolderLink(dir)
	if err != nil {
		return err
	}
	if target != "" {
		if des, err := os.ReadDir(target); err == nil && len(des) == 0 {
			return WriteFileAtomic(filepath.Join(dir, ".gitignore"), []byte(gitignoreText), 0o644)
		}
		return nil
	}
	if _, err := os.Stat(dir); err == nil {
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(dir, ".gitignore"), []byte(gitignoreText), 0o644)
}

// gitignoreText is the .gitignore MakeDir writes; its first line tells a
// state folder (holdsState).
const gitignoreText = "# Written by kiln: the state folder stays out of version control.\n*\n"
