package sandbox

import "golang.org/x/sys/unix"

// heldBound is how many folders a Held keeps open: a quarter of the
// process's descriptor limit, at most 16,384, so that the runs' pipes and
// logs always have descriptors to spare.
func heldBound() int {
	var lim unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &lim) != nil {
		return 0
	}
	return int(min(lim.Cur/4, 16384))
}

// openPath opens path for rules (O_PATH), and says whether it is a folder.
func openPath(path string) (fd int, dir bool, ok bool) {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, false, false
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		_ = unix.Close(fd)
		return -1, false, false
	}
	return fd, st.Mode&unix.S_IFMT == unix.S_IFDIR, true
}

func closePath(fd int) { _ = unix.Close(fd) }
