//go:build linux && !(amd64 || arm64)

package hash

import "golang.org/x/sys/unix"

// lstatAt is unix.Fstatat(fd, path, st, AT_SYMLINK_NOFOLLOW) for a path
// given as NUL-terminated bytes.
func lstatAt(fd int, path []byte, st *unix.Stat_t) error {
	return unix.Fstatat(fd, string(path[:len(path)-1]), st, unix.AT_SYMLINK_NOFOLLOW)
}
