package config

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// parallel calls f(i) for every i below n, on up to GOMAXPROCS goroutines
// taking the next i in turn; one goroutine for fewer than perWorker items
// each. f must touch only what item i owns.
func parallel(n int, f func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n/perWorker)
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

// perWorker is the fewest items worth a goroutine of parallel. (A variable
// so that a test can load small pipelines in parallel.)
var perWorker = 64
