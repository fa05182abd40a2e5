package hash

import (
	"io/fs"
	"syscall"
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

// stampHolds lstats path without building an os.FileInfo and reports
// whether it is a folder (dir) or a regular file with the stamp s.
func stampHolds(path string, s Stamp, dir bool) bool {
	var st syscall.Stat_t
	err := syscall.Lstat(path, &st)
	for err == syscall.EINTR {
		err = syscall.Lstat(path, &st)
	}
	if err != nil {
		return false
	}
	kind := uint32(syscall.S_IFREG)
	if dir {
		kind = syscall.S_IFDIR
	}
	return st.Mode&syscall.S_IFMT == kind &&
		s == Stamp{Dev: uint64(st.Dev), Ino: uint64(st.Ino), Size: int64(st.Size), Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano()}
}
