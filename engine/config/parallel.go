package config

import (
	"runtime"

	"github.com/kilnbuild/kiln/engine/par"
)

// parallel calls f(i) for every i below n, on up to GOMAXPROCS goroutines
// taking the next i in turn; one goroutine for fewer than perWorker items
// each. f must touch only what item i owns.
func parallel(n int, f func(i int)) {
	par.Each(n, min(runtime.GOMAXPROCS(0), n/perWorker), f)
}

// perWorker is the fewest items worth a goroutine of parallel. (A variable
// so that a test can load small pipelines in parallel.)
var perWorker = 64
