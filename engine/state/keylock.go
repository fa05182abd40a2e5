package state

import (
	"path/filepath"
	"sync"
)

// keyLocks serialises runs of the same store entry within the process. It is
// keyed by the entry's absolute path, so two Stores of one folder share it.
var keyLocks = struct {
	mu    sync.Mutex
	locks map[string]*keyLock
}{locks: map[string]*keyLock{}}

type keyLock struct {
	mu    sync.Mutex
	users int // holders and waiters; the entry is dropped at zero
}

// LockKey blocks until no other caller in this process holds key, and
// returns the function that releases it. Two nodes with the same key in one
// apply thus run one after the other, and the second finds the entry
// complete and restores it.
func (s *Store) LockKey(key string) (unlock func()) {
	name := filepath.Join(s.rootDir, "lock", key) // a lock name, not a path that is ever made
	if abs, err := filepath.Abs(name); err == nil {
		name = abs
	}
	keyLocks.mu.Lock()
	l := keyLocks.locks[name]
	if l == nil {
		l = &keyLock{}
		keyLocks.locks[name] = l
	}
	l.users++
	keyLocks.mu.Unlock()

	l.mu.Lock()
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Unlock()
			keyLocks.mu.Lock()
			l.users--
			if l.users == 0 {
				delete(keyLocks.locks, name)
			}
			keyLocks.mu.Unlock()
		})
	}
}
