package state

import "path/filepath"

// CurrentHolder returns what the holder of dir's apply lock recorded, and
// false when the lock file holds nothing (no apply holds it, or it has not
// written its details yet). It does not take the lock. A kiln that died
// leaves its details behind: callers check that the process is alive.
func CurrentHolder(dir string) (Holder, bool) {
	h := readHolder(filepath.Join(dir, lockName))
	return h, h.PID != 0
}
