package par

import (
	"sync"
	"sync/atomic"
)

// Each calls f(i) for every i below n on up to workers goroutines, each
// taking the next i in turn, and returns once every call has returned;
// one by one, on the calling goroutine, when workers is under 2. f must
// touch only what item i owns.
func Each(n, workers int, f func(i int)) {
	workers = min(workers, n)
	if workers < 2 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				f(i)
			}
		})
	}
	wg.Wait()
}
