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
// user wrote, or removed on purpose after the first run, is left alone.
func MakeDir(dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(dir, ".gitignore"), []byte("# Written by kiln: the state folder stays out of version control.\n*\n"), 0o644)
}
