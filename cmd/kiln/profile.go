package main

import (
	"os"
	"runtime"
	"runtime/pprof"
)

// startProfile writes a CPU profile to cpuFile when KILN_CPUPROFILE names
// one, and a heap profile to memFile when KILN_MEMPROFILE does (taken when
// the command ends: what it still held, and with -sample_index=alloc_space
// everything it allocated), for measuring kiln itself.
func startProfile(cpuFile, memFile string) (stop func()) {
	stopCPU := func() {}
	if cpuFile != "" {
		if f, err := os.Create(cpuFile); err == nil {
			if pprof.StartCPUProfile(f) == nil {
				stopCPU = func() { pprof.StopCPUProfile(); f.Close() }
			} else {
				f.Close()
			}
		}
	}
	return func() {
		stopCPU()
		if memFile == "" {
			return
		}
		if f, err := os.Create(memFile); err == nil {
			runtime.GC()
			_ = pprof.WriteHeapProfile(f)
			f.Close()
		}
	}
}
