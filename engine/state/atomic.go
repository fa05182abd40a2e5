package state

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// WriteFileAtomic replaces path with data: it writes a temporary file in the
// same folder, fsyncs it, renames it over path and fsyncs the folder. Readers
// see either the old or the new content, also after a crash. On any failure
// the old file is untouched and the temporary file is removed; a full disk is
// named as such.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return writeError(path, err)
	}
	tmpName := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmpName)
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return writeError(path, err)
	}
	if err := tmp.Chmod(perm); err != nil {
		return writeError(path, err)
	}
	if err := tmp.Sync(); err != nil {
		return writeError(path, err)
	}
	if err := tmp.Close(); err != nil {
		return writeError(path, err)
	}
	if err := os.Rename(tmpName, path); err != nil {
		return writeError(path, err)
	}
	ok = true
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("wrote %s but could not make the rename durable: %w", path, err)
	}
	return nil
}

// writeError wraps a failed write of path, naming a full disk or quota
// explicitly because the bare errno is easy to overlook.
func writeError(path string, err error) error {
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return fmt.Errorf("writing %s: disk full (%w); free some space and run the command again — the previous content is unchanged", path, err)
	case errors.Is(err, syscall.EDQUOT):
		return fmt.Errorf("writing %s: disk quota exceeded (%w); free some space and run the command again — the previous content is unchanged", path, err)
	case errors.Is(err, syscall.EFBIG):
		return fmt.Errorf("writing %s: file size limit exceeded (%w); raise the limit (ulimit -f) and run the command again — the previous content is unchanged", path, err)
	}
	return fmt.Errorf("writing %s: %w; the previous content is unchanged", path, err)
}

// syncDir makes renames and new entries in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("fsync folder %s: %w", dir, err)
	}
	return nil
}
