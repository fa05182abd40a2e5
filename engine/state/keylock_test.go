package state

import (
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

func TestLockKeySerialises(t *testing.T) {
	st := OpenStore(t.TempDir())
	var inside, most atomic.Int32
	counter := 0 // unsynchronised on purpose: the race detector checks LockKey
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				unlock := st.LockKey("same")
				n := inside.Add(1)
				if n > most.Load() {
					most.Store(n)
				}
				counter++
				inside.Add(-1)
				unlock()
			}
		})
	}
	wg.Wait()
	if counter != 800 || most.Load() != 1 {
		t.Errorf("counter %d (want 800), at most %d holders at once (want 1)", counter, most.Load())
	}
}

func TestLockKeyAcrossStores(t *testing.T) {
	dir := t.TempDir()
	a, b := OpenStore(dir), OpenStore(dir)
	unlockA := a.LockKey("k")
	unlockOther := a.LockKey("other") // a different key does not wait
	unlockOther()

	var acquired atomic.Bool
	done := make(chan struct{})
	go func() {
		unlock := b.LockKey("k")
		acquired.Store(true)
		unlock()
		close(done)
	}()
	name, _ := filepath.Abs(filepath.Join(a.rootDir, "lock", "k"))
	for waiters(name) < 2 {
		runtime.Gosched()
	}
	if acquired.Load() {
		t.Fatal("a second Store of the same folder took a held key")
	}
	unlockA()
	unlockA() // a second call is harmless
	<-done
	if !acquired.Load() {
		t.Error("the waiter never got the key")
	}
	if waiters(name) != 0 {
		t.Error("released keys are not dropped")
	}
}

func waiters(name string) int {
	keyLocks.mu.Lock()
	defer keyLocks.mu.Unlock()
	if l := keyLocks.locks[name]; l != nil {
		return l.users
	}
	return 0
}
