package state

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// WriteFileAtomic replaces path with data: it writes a temporary file in the
// same folder, fsyncs it, renames it over path and fsyncs the folder. Readers
// see either the old or the new content, also after a crash. On any failure
// the old file is untouched and the temporary file is removed; a full disk is
// named as such.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	return replaceFile(path, data, perm, true)
}

// ReplaceFile is WriteFileAtomic without the fsyncs: readers still see the
// old or the new content, but after a power loss the file may be gone or
// empty. It is for files whose loss is detected and repaired, such as a
// store entry's metadata, whose entry files are not fsynced either.
func ReplaceFile(path string, data []byte, perm os.FileMode) error {
	return replaceFile(path, data, perm, false)
}

func replaceFile(path string, data []byte, perm os.FileMode, durable bool) error {
	return replaceFileWith(path, perm, durable, func(f *os.File) error {
		_, err := f.Write(data)
		return err
	})
}

// replaceFileWith replaces path with what write writes to a new file
// beside it, as replaceFile does.
func replaceFileWith(path string, perm os.FileMode, durable bool, write func(*os.File) error) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	// The writer's process id is in the name: a temporary file whose
	// writer is gone is a leftover (removeStaleTemps).
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-"+strconv.Itoa(os.Getpid())+"-*")
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
	if err := write(tmp); err != nil {
		return writeError(path, err)
	}
	if err := tmp.Chmod(perm); err != nil {
		return writeError(path, err)
	}
	if durable {
		if err := tmp.Sync(); err != nil {
			return writeError(path, err)
		}
	}
	if err := tmp.Close(); err != nil {
		return writeError(path, err)
	}
	if err := os.Rename(tmpName, path); err != nil {
		return writeError(path, err)
	}
	ok = true
	if !durable {
		return nil
	}
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("wrote %s but could not make the rename durable: %w", path, err)
	}
	return nil
}

// writeError wraps a failed replacement of path.
func writeError(path string, err error) error {
	return fmt.Errorf("writing %s: %s%w; %s — the previous content is unchanged", path, spaceProblem(err), err, spaceAdvice(err))
}

// spaceProblem names a full disk, quota or size limit explicitly, because
// the bare errno is easy to overlook.
func spaceProblem(err error) string {
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return "disk full: "
	case errors.Is(err, syscall.EDQUOT):
		return "disk quota exceeded: "
	case errors.Is(err, syscall.EFBIG):
		return "file size limit exceeded: "
	}
	return ""
}

func spaceAdvice(err error) string {
	switch {
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return "free some space and run the command again"
	case errors.Is(err, syscall.EFBIG):
		return "raise the limit (ulimit -f) and run the command again"
	}
	return "fix the cause and run the command again"
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
