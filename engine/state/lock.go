package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kilnbuild/kiln/engine/filelock"
)

const lockName = "lock"

// Holder describes the process holding the apply lock.
type Holder struct {
	PID     int       `json:"pid"`
	Host    string    `json:"host"`
	Started time.Time `json:"started"`
	Command string    `json:"command"`
}

// Lock is the exclusive apply lock of a state folder: an flock(2) on
// dir/lock, which the kernel releases when the process exits or dies, so a
// crash never leaves a stale lock. The file's content only names the holder.
type Lock struct {
	lock *filelock.Lock
}

// AcquireLock takes the apply lock of dir without waiting, creating the
// folder and the lock file if needed, and records h in the lock file. If
// another process (or another open of the file) holds it, the error is a
// *LockedError naming the holder.
func AcquireLock(dir string, h Holder) (*Lock, error) {
	if err := checkFolder(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating state folder: %w", err)
	}
	path := filepath.Join(dir, lockName)
	l, err := filelock.TryLock(path)
	if errors.Is(err, filelock.ErrLocked) {
		return nil, &LockedError{Dir: dir, Holder: readHolder(path)}
	}
	if err != nil {
		return nil, fmt.Errorf("apply lock: %w", err)
	}
	if err := writeHolder(l.File(), h); err != nil {
		l.Unlock()
		return nil, fmt.Errorf("recording the apply lock holder in %s: %w", path, err)
	}
	removeStaleTemps(dir)
	return &Lock{lock: l}, nil
}

// staleAfter is how old a temporary file of the cache folder must be to be
// taken for a leftover: commands that hold no lock (plan) write there.
const staleAfter = 10 * time.Minute

// removeStaleTemps removes temporary files a killed kiln left: those of the
// state files and links, which only the lock's holder writes, and those of
// the cache folder whose writer is gone or that are old (plan writes there
// without the lock).
func removeStaleTemps(dir string) {
	isTemp := func(name string) bool {
		return strings.HasPrefix(name, ".") && (strings.Contains(name, ".tmp-") || strings.HasSuffix(name, ".tmp"))
	}
	if des, err := os.ReadDir(dir); err == nil {
		for _, de := range des {
			if isTemp(de.Name()) && !de.IsDir() {
				os.Remove(filepath.Join(dir, de.Name()))
			}
		}
	}
	if des, err := os.ReadDir(filepath.Join(dir, tmpName)); err == nil {
		for _, de := range des {
			os.RemoveAll(filepath.Join(dir, tmpName, de.Name()))
		}
	}
	cache := filepath.Join(dir, "cache")
	if des, err := os.ReadDir(cache); err == nil {
		for _, de := range des {
			if fi, err := de.Info(); err == nil && isTemp(de.Name()) && !de.IsDir() && (writerGone(de.Name()) || time.Since(fi.ModTime()) > staleAfter) {
				os.Remove(filepath.Join(cache, de.Name()))
			}
		}
	}
}

// Release clears the holder details and releases the lock. The lock file
// stays: removing it would let two processes lock different files.
func (l *Lock) Release() error {
	if l == nil || l.lock == nil {
		return nil
	}
	fl := l.lock
	l.lock = nil
	truncErr := fl.File().Truncate(0)
	if err := fl.Unlock(); err != nil {
		return fmt.Errorf("releasing apply lock: %w", err)
	}
	if truncErr != nil {
		return fmt.Errorf("clearing apply lock holder: %w", truncErr)
	}
	return nil
}

func writeHolder(f *os.File, h Holder) error {
	data, err := json.Marshal(h)
	if err != nil {
		return err
	}
	if err := f.Truncate(0); err != nil {
		return err
	}
	if _, err := f.WriteAt(append(data, '\n'), 0); err != nil {
		return err
	}
	return f.Sync()
}

// readHolder returns what the holder recorded; zero if it has not written
// yet or the content is unreadable.
func readHolder(path string) Holder {
	var h Holder
	f, err := os.Open(path)
	if err != nil {
		return h
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 1<<16))
	if err == nil {
		_ = json.Unmarshal(data, &h) // unreadable details are reported as unknown
	}
	return h
}

// writerGone reports whether the process that named a temporary file
// (".NAME.tmp-PID-RANDOM", see replaceFile) no longer runs; false when the
// name holds no process id.
func writerGone(name string) bool {
	_, rest, ok := strings.Cut(name, ".tmp-")
	if !ok {
		return false
	}
	pidText, _, ok := strings.Cut(rest, "-")
	pid, err := strconv.Atoi(pidText)
	if !ok || err != nil || pid <= 0 || pid == os.Getpid() {
		return false
	}
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
