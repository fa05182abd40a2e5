package filelock

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kilnbuild/kiln/engine/nolink"
)

func TestTryLockExcludes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	l, err := TryLock(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := TryLock(path); !errors.Is(err, ErrLocked) {
		t.Fatalf("second TryLock: %v, want ErrLocked", err)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	l2, err := TryLock(path)
	if err != nil {
		t.Fatalf("TryLock after Unlock: %v", err)
	}
	l2.Unlock()
}

func TestWaitTakesTheLockWhenFreed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	l, err := TryLock(path)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() {
		l2, err := Wait(context.Background(), path)
		if err == nil {
			l2.Unlock()
		}
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("Wait returned while the lock was held: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	l.Unlock()
	if err := <-got; err != nil {
		t.Fatalf("Wait: %v", err)
	}
}

func TestWaitEndsWithItsContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	l, err := TryLock(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Wait(ctx, path); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait with a cancelled context: %v", err)
	}
}

func TestTryLockRefusesALink(t *testing.T) {
	dir := t.TempDir()
	decoy := filepath.Join(dir, "decoy")
	if err := os.WriteFile(decoy, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "lock")
	if err := os.Symlink(decoy, path); err != nil {
		t.Fatal(err)
	}
	l, err := TryLock(path)
	if err == nil {
		l.Unlock()
	}
	var le *nolink.Error
	if !errors.As(err, &le) {
		t.Fatalf("TryLock of a link: %v, want a *nolink.Error", err)
	}
}
