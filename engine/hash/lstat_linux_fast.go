//go:build linux && (amd64 || arm64)

package hash

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// lstatAt is unix.Fstatat(fd, path, st, AT_SYMLINK_NOFOLLOW) for a path
// given as NUL-terminated bytes, so that a check of many stamps does not
// allocate a C string per call.
func lstatAt(fd int, path []byte, st *unix.Stat_t) error {
	_, _, e := unix.Syscall6(unix.SYS_NEWFSTATAT, uintptr(fd), uintptr(unsafe.Pointer(&path[0])), uintptr(unsafe.Pointer(st)), unix.AT_SYMLINK_NOFOLLOW, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}
