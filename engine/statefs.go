package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// StateFolderError is a file system error in a pipeline's state folder
// (.kiln), with what is wrong and what to do: the bare OS error ("read
// .kiln/state.json: is a directory", "open .kiln/lock: permission denied")
// does not say that the folder kiln keeps its records in is the problem.
type StateFolderError struct {
	Dir    string // the state folder
	Path   string // the file or folder that failed
	Advice string
	Err    error
}

func (e *StateFolderError) Error() string { return fmt.Sprintf("%v\n%s", e.Err, e.Advice) }
func (e *StateFolderError) Unwrap() error { return e.Err }

// ExplainStateError returns err as a *StateFolderError when it is a file
// system error under a state folder that the user has to fix: a folder
// where kiln keeps a file, a folder kiln cannot write, a read-only file
// system. Any other error comes back unchanged.
func ExplainStateError(err error) error {
	var pe *fs.PathError
	var already *StateFolderError
	if err == nil || errors.As(err, &already) || !errors.As(err, &pe) {
		return err
	}
	dir, ok := stateFolderOf(pe.Path)
	if !ok {
		return err
	}
	e := &StateFolderError{Dir: dir, Path: pe.Path, Err: err}
	switch {
	case errors.Is(err, syscall.EISDIR):
		e.Advice = fmt.Sprintf("kiln keeps a file at %s, but it is a folder. Move it out of the way (mv %s %s.moved) and run again.", pe.Path, pe.Path, pe.Path)
	case errors.Is(err, syscall.EROFS):
		e.Advice = fmt.Sprintf("The state folder %s is on a read-only file system, and kiln writes its records, results and logs there. Run kiln where the pipeline's folder is writable (a copy of it, or a read-write mount).", dir)
	case errors.Is(err, fs.ErrPermission):
		if who := owner(dir); who != "" {
			e.Advice = fmt.Sprintf("kiln cannot write in the state folder %s, which belongs to %s. Run kiln as %s, or give this user the folder: chown -R $(id -un) %s", dir, who, who, dir)
		} else {
			e.Advice = fmt.Sprintf("kiln cannot write in the state folder %s. Make it writable (chmod -R u+w %s) and run again.", dir, dir)
		}
	default:
		return err
	}
	return e
}

// stateFolderOf finds the state folder (.kiln) that path is in or is.
func stateFolderOf(path string) (string, bool) {
	parts := strings.Split(filepath.Clean(path), string(filepath.Separator))
	for i := len(parts) - 1; i >= 0; i-- {
		if parts[i] == ".kiln" {
			return strings.Join(parts[:i+1], string(filepath.Separator)), true
		}
	}
	return "", false
}

// owner names the user who owns dir, or "" when it is this process's.
func owner(dir string) string {
	fi, err := os.Stat(dir)
	if err != nil {
		return ""
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) == os.Getuid() {
		return ""
	}
	name := strconv.Itoa(int(st.Uid))
	if u, err := user.LookupId(name); err == nil {
		name = u.Username
	}
	return name
}
