package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"sync"
	"time"

	"github.com/kilnbuild/kiln/engine"
	"github.com/kilnbuild/kiln/providers"
)

// peakHeap keeps the heap profile taken when the live heap (as the last
// garbage collection measured it) was largest, polling every 20 ms: each
// time it grew by a tenth, two collections are forced and the profile taken.
type peakHeap struct {
	mu   sync.Mutex
	max  uint64
	prof bytes.Buffer
	stop chan struct{}
	done chan struct{}
}

func watchHeap() *peakHeap {
	p := &peakHeap{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
			}
			metrics.Read(s)
			if live := s[0].Value.Uint64(); live > p.max+p.max/10 {
				// A heap profile shows the heap of up to two collections
				// ago: collect twice so that it shows this one.
				runtime.GC()
				runtime.GC()
				p.mu.Lock()
				p.max = live
				p.prof.Reset()
				_ = pprof.Lookup("heap").WriteTo(&p.prof, 0)
				p.mu.Unlock()
			}
		}
	}()
	return p
}

// save stops watching and writes the profile of the peak to path.
func (p *peakHeap) save(path string) (uint64, error) {
	close(p.stop)
	<-p.done
	return p.max, os.WriteFile(path, p.prof.Bytes(), 0o644)
}

// applyPeak runs kiln apply in-process on the pipeline at path and writes
// the heap profile of its largest live heap to memprofile.
func applyPeak(path, memprofile string, parallelism int) error {
	w, diags, err := engine.Open(engine.Options{Path: path, Kinds: providers.All()})
	if err != nil || diags.HasErrors() {
		return fmt.Errorf("open %s: %v %s", path, err, diags.Error())
	}
	watch := watchHeap()
	t := time.Now()
	res, err := w.Apply(context.Background(), engine.ApplyOptions{Parallelism: parallelism, Command: "profile -apply", Final: true})
	took := time.Since(t)
	max, serr := watch.save(memprofile)
	if err != nil {
		return err
	}
	if res.Failed() {
		return fmt.Errorf("the apply failed")
	}
	fmt.Printf("apply of %s: %.1f s; largest live heap %.1f MB (profile: %s)\n", path, took.Seconds(), float64(max)/1e6, memprofile)
	return serr
}

// heldProfile writes the heap profile of what is live now to path, after
// two collections (a profile shows the heap of up to two collections ago).
func heldProfile(path string) error {
	runtime.GC()
	runtime.GC()
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("create the heap profile: %w", err)
	}
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		f.Close()
		return fmt.Errorf("write the heap profile: %w", err)
	}
	return f.Close()
}
