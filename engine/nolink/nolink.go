package nolink

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// Error is a symbolic link where kiln writes a file of its own.
type Error struct {
	Path   string // the link
	Target string // what it points at, as the link says
	// Hint, when set, is said after the way forward.
	Hint string
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("%s is a symbolic link to %s; kiln never writes through a link there, which would overwrite what it points at: remove the link (rm %s) and run the command again", e.Path, e.Target, e.Path)
	if e.Hint != "" {
		msg += "; " + e.Hint
	}
	return msg
}

// OpenFile is os.OpenFile with O_NOFOLLOW: a symbolic link at path is
// refused with an *Error, whatever flag asks for. Links in the folders above
// path are followed as usual.
func OpenFile(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW, perm)
	if err != nil {
		return nil, refused(path, err)
	}
	return f, nil
}

// WriteFile is os.WriteFile through OpenFile: it truncates the file at path
// or creates it, and refuses a symbolic link there.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	f, err := OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Check returns an *Error when path is a symbolic link, nil otherwise (also
// when nothing is there).
func Check(path string) error {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return nil
	}
	return linkError(path)
}

// refused turns the ELOOP of an O_NOFOLLOW open of a link into an *Error;
// other errors, and an ELOOP from a loop in the folders above, are returned
// as they are.
func refused(path string, err error) error {
	if !errors.Is(err, syscall.ELOOP) {
		return err
	}
	if fi, lerr := os.Lstat(path); lerr != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return err
	}
	return linkError(path)
}

func linkError(path string) *Error {
	target, err := os.Readlink(path)
	if err != nil {
		target = "(unreadable: " + err.Error() + ")"
	}
	return &Error{Path: path, Target: target}
}
