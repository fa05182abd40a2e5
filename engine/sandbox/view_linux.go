package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"golang.org/x/sys/unix"
)

// enter gives the calling thread, which must be locked and must have left
// the shared file system state, a mount namespace of its own that shows
// v: a small tmpfs on ViewRoot with each bind below it. Mounts made on the
// host later still reach the namespace (it is a slave of the host's);
// nothing made in it reaches the host. The command the thread starts
// inherits the namespace, which ends with the command's last process.
func (v *View) enter() error {
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		return fmt.Errorf("sandbox: a mount namespace of its own: %w", err)
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
		return fmt.Errorf("sandbox: keeping the run's mounts from the host: %w", err)
	}
	if err := unix.Mount("kiln", ViewRoot, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755,size=64m"); err != nil {
		return fmt.Errorf("sandbox: a tmpfs on %s: %w", ViewRoot, err)
	}
	made := map[string]bool{}
	for _, b := range v.Binds {
		dir := b.At
		if b.Link {
			dir = filepath.Dir(b.At)
		}
		if !made[dir] {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return fmt.Errorf("sandbox: %w", err)
			}
			made[dir] = true
		}
		if b.Link {
			if err := os.Symlink(b.Source, b.At); err != nil {
				return fmt.Errorf("sandbox: %w", err)
			}
			continue
		}
		if err := unix.Mount(b.Source, b.At, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("sandbox: showing %s at %s: %w", b.Source, b.At, err)
		}
	}
	return nil
}

// viewProbe says whether runs can be relocated on this machine, and why
// not. It makes ViewRoot, an empty folder, where it is missing (as Nix's
// installer makes /nix), and tries a namespace on a thread of its own.
var viewProbe = sync.OnceValue(func() error {
	if uid := os.Geteuid(); uid != 0 {
		return fmt.Errorf("kiln runs as uid %d, and makes the mount namespace that fixes the paths only as root", uid)
	}
	switch entries, err := os.ReadDir(ViewRoot); {
	case errors.Is(err, os.ErrNotExist):
		if err := os.Mkdir(ViewRoot, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("making %s, where runs see their fixed paths: %w", ViewRoot, err)
		}
	case err != nil:
		return fmt.Errorf("%s, where runs see their fixed paths: %w", ViewRoot, err)
	case len(entries) > 0:
		return fmt.Errorf("%s is not an empty folder, and runs see their fixed paths there (move what it holds)", ViewRoot)
	}
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies with its namespace
		if err := unix.Unshare(unix.CLONE_FS); err != nil {
			done <- err
			return
		}
		done <- (&View{}).enter()
	}()
	return <-done
})
