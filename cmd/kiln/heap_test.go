package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestHeapLimit(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int64
	}{
		{0, heapFloor},
		{50 << 20, heapFloor},
		{80 << 20, heapFloor},
		{100 << 20, 200 << 20},
		{1 << 30, 2 << 30},
		{math.MaxUint64, 2 << 61},
	} {
		if got := heapLimit(c.live); got != c.want {
			t.Errorf("heapLimit(%d) = %d, want %d", c.live, got, c.want)
		}
	}
}

// TestHeapLimitFollowsLiveHeap: while an apply runs, the limit rises with
// the live heap after a collection, so it never holds the collector at a
// heap it cannot shrink; the environment's GOGC or GOMEMLIMIT turns it off;
// the limit is back to what it was once the apply ends.
func TestHeapLimitFollowsLiveHeap(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	off := limitHeap(func(k string) string {
		if k == "GOMEMLIMIT" {
			return "1GiB"
		}
		return ""
	})
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("with GOMEMLIMIT set, the limit became %d", got)
	}
	off()

	stop := limitHeap(func(string) string { return "" })
	if got := debug.SetMemoryLimit(-1); got < heapFloor || got == before {
		t.Errorf("limit while applying: %d, want at least %d", got, heapFloor)
	}
	live := make([][]byte, 200)
	for i := range live {
		live[i] = make([]byte, 1<<20) // 200 MiB live
	}
	want := int64(2 * 200 << 20)
	deadline := time.Now().Add(10 * time.Second)
	for debug.SetMemoryLimit(-1) < want && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if got := debug.SetMemoryLimit(-1); got < want {
		t.Errorf("limit with 200 MiB live: %d, want at least %d", got, want)
	}
	runtime.KeepAlive(live)
	stop()
	stop() // stopping twice is harmless
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit after the apply: %d, want %d as before", got, before)
	}
}
