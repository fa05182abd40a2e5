package state

import (
	"os"
	"path/filepath"
)

// CurrentHolder returns what the holder of dir's apply lock recorded, and
// false when the lock file holds nothing (no apply holds it, or it has not
// written its details yet). It does not take the lock. A kiln that died
// leaves its details behind: callers check that the process is alive.
func CurrentHolder(dir string) (Holder, bool) {
	f, err := os.Open(filepath.Join(dir, lockName))
	if err != nil {
		return Holder{}, false
	}
	defer f.Close()
	h := readHolder(f)
	return h, h.PID != 0
}
