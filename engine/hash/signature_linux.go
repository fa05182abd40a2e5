package hash

import (
	"io/fs"
	"syscall"

	"golang.org/x/sys/unix"
)

// signatureOf returns the stat signature of info, which must come from
// os.Lstat, os.Stat or File.Stat.
func signatureOf(info fs.FileInfo) (signature, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return signature{}, false
	}
	return signature{
		dev:   uint64(st.Dev),
		ino:   uint64(st.Ino),
		size:  int64(st.Size),
		mtime: st.Mtim.Nano(),
		ctime: st.Ctim.Nano(),
	}, true
}

// A Root is a folder held open so that seals below it are checked with
// paths relative to it: the kernel walks fewer path components (a no-op
// plan checks two stamps per node, most of its time in the kernel).
type Root struct{ fd int }

// OpenRoot opens the folder at path as a Root; false when it cannot.
func OpenRoot(path string) (*Root, bool) {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	return &Root{fd: fd}, true
}

// Close releases the folder.
func (r *Root) Close() { unix.Close(r.fd) }

// stampHolds lstats path — NUL-terminated, relative to r or, when r is
// nil, to the working folder — without building an os.FileInfo, and
// reports whether it is a folder (dir) or a regular file with the stamp s.
func stampHolds(r *Root, path []byte, s Stamp, dir bool) bool {
	fd := unix.AT_FDCWD
	if r != nil {
		fd = r.fd
	}
	var st unix.Stat_t
	err := lstatAt(fd, path, &st)
	for err == unix.EINTR {
		err = lstatAt(fd, path, &st)
	}
	if err != nil {
		return false
	}
	kind := uint32(unix.S_IFREG)
	if dir {
		kind = unix.S_IFDIR
	}
	return st.Mode&unix.S_IFMT == kind &&
		s == Stamp{Dev: uint64(st.Dev), Ino: uint64(st.Ino), Size: int64(st.Size), Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano()}
}
