package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// A plan's and an apply's heap. With GOGC 200 (main) the heap grows to
// three times the live heap before each collection, which a small plan
// wants: it allocates fast and briefly. An apply holds its pipeline, state
// and lock for its whole length (about 70 MB live for 10,000 nodes) while it
// allocates little per node, so three times the live heap is memory it
// holds for nothing: a peak RSS of 300 MB where ninja has 13. A plan of
// 100,000 nodes holds 700 MB live at its peak, and three times that is
// 2 GB. While a plan or an apply runs, kiln also keeps a soft memory limit
// (debug.SetMemoryLimit) of twice the live heap and never less than
// heapFloor, set again after every collection. A small pipeline is
// unaffected (three times its live heap is under the floor); a large one
// collects as with GOGC 100 and never more often, because the limit follows
// the live heap up: it cannot make the collector run without pause, as a
// fixed limit near the live heap does.
// GOGC or GOMEMLIMIT in the environment still decide.

// heapFloor is the lowest limit kept.
const heapFloor = 160 << 20

// heapLimit is the memory limit kept while the live heap is live bytes.
func heapLimit(live uint64) int64 { return max(heapFloor, 2*int64(min(live, 1<<61))) }

// heapPolicy holds the limit while at least one apply runs (tests run
// several in one process).
var heapPolicy struct {
	sync.Mutex
	users int
	gen   int   // which watch is current: a stopped one's last tick does nothing
	prev  int64 // the limit before the first apply
}

// limitHeap keeps the limit until the returned stop is called, unless the
// environment sets GOGC or GOMEMLIMIT.
func limitHeap(getenv func(string) string) (stop func()) {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	heapPolicy.Lock()
	defer heapPolicy.Unlock()
	heapPolicy.users++
	if heapPolicy.users == 1 {
		heapPolicy.gen++
		heapPolicy.prev = debug.SetMemoryLimit(heapLimit(liveHeap()))
		watchCollections(heapPolicy.gen)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			heapPolicy.Lock()
			defer heapPolicy.Unlock()
			heapPolicy.users--
			if heapPolicy.users == 0 {
				heapPolicy.gen++
				debug.SetMemoryLimit(heapPolicy.prev)
			}
		})
	}
}

// gcTick is collected by the next collection, whose end its finalizer
// marks.
type gcTick struct{ _ *byte }

// watchCollections sets the limit after every collection while gen is the
// current watch.
func watchCollections(gen int) {
	runtime.SetFinalizer(&gcTick{}, func(*gcTick) {
		heapPolicy.Lock()
		defer heapPolicy.Unlock()
		if heapPolicy.gen != gen {
			return
		}
		debug.SetMemoryLimit(heapLimit(liveHeap()))
		watchCollections(gen)
	})
}

// liveHeap is the heap the last collection found live.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
