package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// A plan's and an apply's heap. With GOGC 200 (main) the heap grows to
// three times the live heap before each collection, which a plan wants: it
// allocates fast and briefly. A plan of 100,000 nodes holds 700 MB live at
// its peak, and three times that is 2 GB, so while a plan runs kiln also
// keeps a soft memory limit (debug.SetMemoryLimit) of twice the live heap
// and never less than 160 MiB, set again after every collection. A small
// pipeline is unaffected (three times its live heap is under the floor); a
// large one collects as with GOGC 100 and never more often, because the
// limit follows the live heap up: it cannot make the collector run without
// pause, as a fixed limit near the live heap does.
//
// An apply holds its pipeline, state and lock for its whole length (about
// 60 MB live for 10,000 nodes). While it loads and decides it allocates as
// fast as a plan, and collects as a plan does; while its nodes run it
// allocates little (a node's run takes milliseconds of processes for tens
// of kilobytes of kiln's own allocation), and room of twice the live heap
// or more is memory held for nothing: a peak RSS of 190 MB where ninja has
// 13. So an apply's limit is twice the live heap and never less than
// 48 MiB, and once collections come a second or more apart it collects
// at GOGC 25, at 1.25 times the live heap: at 10,000 nodes every two
// seconds or so, each a few tens of milliseconds, beside builds that take
// minutes. Collections closer together (an apply deciding thousands of
// up-to-date nodes, a large pipeline loading) bring GOGC 200 back, so such
// an apply takes no more CPU than a plan. GOGC, not a limit near the live
// heap, sets the room: the limit counts the runtime's own memory too
// (about 30 MB of an apply of 10,000 nodes), and a limit of 1.5 times the
// live heap left the heap no room beyond it, so the collector ran without
// pause (1,171 collections instead of 20, 12 % of the CPU).
// GOGC or GOMEMLIMIT in the environment still decide.

// A heapRule is the limit kept while a command runs: factor times the live
// heap, never less than floor, with the collector at gogc, or at slowGOGC
// once collections come slowAfter or more apart (0: gogc throughout).
type heapRule struct {
	floor     int64
	factor    float64
	gogc      int
	slowGOGC  int
	slowAfter time.Duration
}

var (
	planHeap  = heapRule{floor: 160 << 20, factor: 2, gogc: 200}
	applyHeap = heapRule{floor: 48 << 20, factor: 2, gogc: 200, slowGOGC: 25, slowAfter: time.Second}
)

// limit is the memory limit kept while the live heap is live bytes.
func (r heapRule) limit(live uint64) int64 {
	return max(r.floor, int64(r.factor*float64(min(live, 1<<61))))
}

// heapPolicy holds the limit while at least one command keeps it (tests
// run several in one process; the first one's rule holds).
var heapPolicy struct {
	sync.Mutex
	users    int
	gen      int // which watch is current: a stopped one's last tick does nothing
	rule     heapRule
	prev     int64 // the limit before the first user
	prevGOGC int
	gogc     int       // the collector's GOGC now
	lastGC   time.Time // when the watch saw the last collection end
}

// limitHeap keeps rule's limit until the returned stop is called, unless
// the environment sets GOGC or GOMEMLIMIT.
func limitHeap(getenv func(string) string, rule heapRule) (stop func()) {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	heapPolicy.Lock()
	defer heapPolicy.Unlock()
	heapPolicy.users++
	if heapPolicy.users == 1 {
		heapPolicy.gen++
		heapPolicy.rule = rule
		heapPolicy.prev = debug.SetMemoryLimit(rule.limit(liveHeap()))
		heapPolicy.prevGOGC = debug.SetGCPercent(rule.gogc)
		heapPolicy.gogc, heapPolicy.lastGC = rule.gogc, time.Now()
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
				debug.SetGCPercent(heapPolicy.prevGOGC)
			}
		})
	}
}

// gcTick is collected by the next collection, whose end its finalizer
// marks.
type gcTick struct{ _ *byte }

// watchCollections sets the limit, and the rule's GOGC for how far apart
// collections come, after every collection while gen is the current watch.
func watchCollections(gen int) {
	runtime.SetFinalizer(&gcTick{}, func(*gcTick) {
		heapPolicy.Lock()
		defer heapPolicy.Unlock()
		if heapPolicy.gen != gen {
			return
		}
		r := heapPolicy.rule
		debug.SetMemoryLimit(r.limit(liveHeap()))
		now := time.Now()
		if r.slowGOGC != 0 {
			g := r.gogc
			if now.Sub(heapPolicy.lastGC) >= r.slowAfter {
				g = r.slowGOGC
			}
			if g != heapPolicy.gogc {
				debug.SetGCPercent(g)
				heapPolicy.gogc = g
			}
		}
		heapPolicy.lastGC = now
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
