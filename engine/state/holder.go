package state

import (
	"os"
	"path/filepath"

	"github.com/kilnbuild/kiln/engine/proc"
)

// CurrentHolder returns what the holder of dir's apply lock recorded, and
// false when the lock file holds nothing (no apply holds it, or it has not
// written its details yet). It does not take the lock. A kiln that died
// leaves its details behind: callers check that the process is alive.
func CurrentHolder(dir string) (Holder, bool) {
	h := readHolder(filepath.Join(dir, lockName))
	return h, h.PID != 0
}

// HolderAlive reports whether the holder dir's apply lock names still runs:
// a live process on this host, or any holder on another host (which cannot
// be checked from here). It takes no lock, so it never makes an apply that
// starts at that moment find the lock taken. A holder whose pid was reused
// since it died counts as alive.
func HolderAlive(dir string) bool {
	h, ok := CurrentHolder(dir)
	if !ok {
		return false
	}
	if host, _ := os.Hostname(); host != h.Host {
		return true
	}
	st, err := proc.ReadStat(h.PID)
	return err == nil && !st.Dead()
}
