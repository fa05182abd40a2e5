package par

import (
	"sync/atomic"
	"testing"
)

// Each calls f exactly once for every index, whatever the number of
// goroutines, and on the calling goroutine alone when given fewer than two.
func TestEachCallsEveryIndexOnce(t *testing.T) {
	for _, workers := range []int{0, 1, 2, 7, 64} {
		const n = 1000
		var calls [n]atomic.Int32
		Each(n, workers, func(i int) { calls[i].Add(1) })
		for i := range calls {
			if c := calls[i].Load(); c != 1 {
				t.Fatalf("workers %d: f(%d) called %d times", workers, i, c)
			}
		}
	}
	order := []int{}
	Each(5, 1, func(i int) { order = append(order, i) }) // no lock: one goroutine
	if len(order) != 5 || order[0] != 0 || order[4] != 4 {
		t.Errorf("one worker called %v, want 0..4 in order", order)
	}
}
