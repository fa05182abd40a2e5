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
		rule heapRule
		live uint64
		want int64
	}{
		{planHeap, 0, 160 << 20},
		{planHeap, 50 << 20, 160 << 20},
		{planHeap, 80 << 20, 160 << 20},
		{planHeap, 100 << 20, 200 << 20},
		{planHeap, 1 << 30, 2 << 30},
		{planHeap, math.MaxUint64, 2 << 61},
		{applyHeap, 0, 48 << 20},
		{applyHeap, 20 << 20, 48 << 20},
		{applyHeap, 60 << 20, 120 << 20},
		{applyHeap, 1 << 30, 2 << 30},
		{applyHeap, math.MaxUint64, 2 << 61},
	} {
		if got := c.rule.limit(c.live); got != c.want {
			t.Errorf("%+v.limit(%d) = %d, want %d", c.rule, c.live, got, c.want)
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
	}, planHeap)
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("with GOMEMLIMIT set, the limit became %d", got)
	}
	off()

	stop := limitHeap(func(string) string { return "" }, planHeap)
	if got := debug.SetMemoryLimit(-1); got < planHeap.floor || got == before {
		t.Errorf("limit while planning: %d, want at least %d", got, planHeap.floor)
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
		t.Errorf("limit after the plan: %d, want %d as before", got, before)
	}
}

// TestApplyHeapCollectsSoonerWhileNodesRun: an apply collects at GOGC 200
// while collections come close together (loading, deciding), at its slow
// GOGC once they come further apart (nodes running), back at 200 when they
// come close again, under its own limit; the collector is as before once
// it ends.
func TestApplyHeapCollectsSoonerWhileNodesRun(t *testing.T) {
	gogc := debug.SetGCPercent(150)
	defer debug.SetGCPercent(gogc)
	before := debug.SetMemoryLimit(-1)
	runtime.GC() // what the test before held is let go
	rule := applyHeap
	rule.slowAfter = 100 * time.Millisecond
	stop := limitHeap(func(string) string { return "" }, rule)
	percent := func() int {
		heapPolicy.Lock()
		defer heapPolicy.Unlock()
		return heapPolicy.gogc
	}
	// wait collects until the watch has set want, at most 5 seconds.
	wait := func(want int, pause time.Duration) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); percent() != want && time.Now().Before(deadline); {
			time.Sleep(pause)
			runtime.GC()
		}
		if got := percent(); got != want {
			t.Fatalf("GOGC %d, want %d (collections %v apart)", got, want, pause)
		}
	}
	if got := percent(); got != 200 {
		t.Errorf("GOGC as the apply starts: %d, want 200", got)
	}
	wait(25, 2*rule.slowAfter)
	wait(200, 0)
	if got, want := debug.SetMemoryLimit(-1), rule.limit(liveHeap()); got != want || got >= planHeap.limit(liveHeap()) {
		t.Errorf("limit while applying: %d, want %d, below a plan's", got, want)
	}
	stop()
	if got := debug.SetGCPercent(150); got != 150 {
		t.Errorf("GOGC after the apply: %d, want 150 as before", got)
	}
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit after the apply: %d, want %d as before", got, before)
	}
}
