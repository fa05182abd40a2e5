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
