package filelock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/kilnbuild/kiln/engine/nolink"
	"golang.org/x/sys/unix"
)

// ErrLocked is wrapped by TryLock's error when another holder has the lock.
var ErrLocked = errors.New("locked by another process")

// Lock is a held lock.
type Lock struct{ f *os.File }

// TryLock takes the lock of path without waiting, creating the file if
// needed. A symbolic link at path is refused (a *nolink.Error): the holder
// writes into the lock file, which must never be a file elsewhere.
func TryLock(path string) (*Lock, error) {
	f, err := nolink.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	if err := flock(f, unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("lock %s: %w", path, ErrLocked)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return &Lock{f: f}, nil
}

// Wait takes the lock of path, creating the file if needed, and waits for
// it until ctx ends.
func Wait(ctx context.Context, path string) (*Lock, error) {
	wait := 10 * time.Millisecond
	for {
		l, err := TryLock(path)
		if !errors.Is(err, ErrLocked) {
			return l, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for lock %s: %w", path, ctx.Err())
		case <-time.After(wait):
		}
		if wait < 200*time.Millisecond {
			wait *= 2
		}
	}
}

// File is the locked file, for a holder that records itself in it.
func (l *Lock) File() *os.File { return l.f }

// Unlock releases the lock and closes the file.
func (l *Lock) Unlock() error {
	return errors.Join(flock(l.f, unix.LOCK_UN), l.f.Close())
}

// flock is flock(2), tried again when a signal interrupts it.
func flock(f *os.File, how int) error {
	for {
		err := unix.Flock(int(f.Fd()), how)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}
