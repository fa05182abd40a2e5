package hash

import "golang.org/x/sys/unix"

// readAhead asks the kernel to start reading n bytes at off of the file fd into the
// page cache, so that the read of the next chunk overlaps hashing this one.
func readAhead(fd int, off, n int64) {
	if n > 0 {
		_ = unix.Fadvise(fd, off, n, unix.FADV_WILLNEED)
	}
}
