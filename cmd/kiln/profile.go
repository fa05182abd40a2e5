package main

import (
	"os"
	"runtime/pprof"
)

// startProfile writes a CPU profile to file when KILN_CPUPROFILE names one,
// for measuring kiln itself.
func startProfile(file string) (stop func()) {
	if file == "" {
		return func() {}
	}
	f, err := os.Create(file)
	if err != nil {
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return func() {}
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}
