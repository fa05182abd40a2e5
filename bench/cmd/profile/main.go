// Command profile times, in one process, the phases of a kiln plan: the
// no-change check kiln plan tries first (engine.QuickCheck), and the full
// path it falls back to after any edit — loading the HCL, building the
// graph, opening the state, deciding every node, rendering the plan — and
// writes a CPU profile of every run. It reads the pipeline given as its
// argument and changes nothing but the stat cache a plan saves, so run it on
// a tree kiln apply has already built. The CPU profile covers the full path
// only (Open, Plan, render), each step once per run:
//
//	go run ./bench/cmd/profile -count 5 -cpuprofile /tmp/plan.pprof bench/out/kiln
//	go tool pprof -top /tmp/plan.pprof
//
// With -memprofile it also writes the heap profile of the last run's largest
// live heap, and with -heldprofile the heap profile of what the last run
// holds once its plan is made (after a collection: the load's structures
// and the decisions a rendering reads). With -apply it runs one kiln apply instead and writes the heap
// profile of its largest live heap (where the bytes go at the peak):
//
//	go run ./bench/cmd/profile -apply -memprofile /tmp/apply.heap bench/out/kiln
//	go tool pprof -top -sample_index=inuse_space /tmp/apply.heap
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/kilnbuild/kiln/engine"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/render"
	"github.com/kilnbuild/kiln/providers"
)

// phases, in the order a plan runs them.
var phases = []string{"engine.QuickCheck (no-op fast path)", "config.Load", "plan.BuildDAG", "engine.Open (Load + BuildDAG + state)", "Workspace.PlanOnce", "render text", "total of the full path (Open + Plan + render)"}

func main() {
	count := flag.Int("count", 5, "how many times to run the sequence (the median is reported)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of every run to this file")
	memprofile := flag.String("memprofile", "", "write the heap profile of the last run's largest live heap to this file")
	heldprofile := flag.String("heldprofile", "", "write the heap profile of what the last run holds once its plan is made to this file")
	apply := flag.Bool("apply", false, "run kiln apply once instead, and write the heap profile of its largest live heap to -memprofile")
	parallelism := flag.Int("parallelism", 2, "-parallelism of -apply")
	flag.Parse()
	if flag.NArg() != 1 {
		fail(fmt.Errorf("give the pipeline folder or file to plan, e.g. bench/out/kiln"))
	}
	path := flag.Arg(0)
	if *apply {
		if *memprofile == "" {
			fail(fmt.Errorf("-apply needs -memprofile FILE"))
		}
		if err := applyPeak(path, *memprofile, *parallelism); err != nil {
			fail(err)
		}
		return
	}
	times := map[string][]time.Duration{}
	kinds := providers.All()
	for range *count {
		if err := parts(path, kinds, times); err != nil {
			fail(err)
		}
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fail(fmt.Errorf("create the CPU profile: %w", err))
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fail(fmt.Errorf("start the CPU profile: %w", err))
		}
		defer pprof.StopCPUProfile()
	}
	var changes int
	var watch *peakHeap
	for i := range *count {
		if *memprofile != "" && i == *count-1 {
			watch = watchHeap()
		}
		held := ""
		if i == *count-1 {
			held = *heldprofile
		}
		c, err := whole(path, kinds, times, held)
		if err != nil {
			pprof.StopCPUProfile()
			fail(err)
		}
		changes = c
	}
	fmt.Printf("plan of %s, median of %d runs (%d nodes would change):\n", path, *count, changes)
	for _, ph := range phases {
		fmt.Printf("  %-46s %8.1f ms\n", ph, float64(median(times[ph]).Microseconds())/1000)
	}
	if watch != nil {
		max, err := watch.save(*memprofile)
		if err != nil {
			fail(err)
		}
		fmt.Printf("largest live heap of the last run: %.1f MB (profile: %s)\n", float64(max)/1e6, *memprofile)
	}
}

// parts times the no-change check and the first steps of the full path on
// their own. They are not profiled, so that the profile counts each step once.
func parts(path string, kinds []kind.Kind, times map[string][]time.Duration) error {
	t := time.Now()
	engine.QuickCheck(engine.Options{Path: path})
	times[phases[0]] = append(times[phases[0]], time.Since(t))
	t = time.Now()
	p, diags := config.Load(path, config.Options{Kinds: kinds})
	if diags.HasErrors() {
		return fmt.Errorf("load %s: %s", path, diags.Error())
	}
	times[phases[1]] = append(times[phases[1]], time.Since(t))
	t = time.Now()
	if _, diags := plan.BuildDAG(p); diags.HasErrors() {
		return fmt.Errorf("build the graph: %s", diags.Error())
	}
	times[phases[2]] = append(times[phases[2]], time.Since(t))
	return nil
}

// whole runs the full path as kiln plan does after an edit — open, plan,
// render — timing each step, and writes the heap profile of what is held
// once the plan is made to held, unless it is "". It returns how many
// nodes the plan would run.
func whole(path string, kinds []kind.Kind, times map[string][]time.Duration, held string) (int, error) {
	start := time.Now()
	w, diags, err := engine.Open(engine.Options{Path: path, Kinds: kinds})
	if err != nil || diags.HasErrors() {
		return 0, fmt.Errorf("open %s: %v %s", path, err, diags.Error())
	}
	times[phases[3]] = append(times[phases[3]], time.Since(start))
	t := time.Now()
	pl, diags := w.PlanOnce(context.Background())
	if diags.HasErrors() {
		return 0, fmt.Errorf("plan: %s", diags.Error())
	}
	times[phases[4]] = append(times[phases[4]], time.Since(t))
	if held != "" {
		if err := heldProfile(held); err != nil {
			return 0, err
		}
	}
	t = time.Now()
	lineage, serial := w.StateVersion()
	m := render.ModelPlan(pl, w.Root(), render.StateJSON{Lineage: lineage, Serial: serial}, engine.Version)
	render.PlanText(io.Discard, m, render.Colors{})
	times[phases[5]] = append(times[phases[5]], time.Since(t))
	times[phases[6]] = append(times[phases[6]], time.Since(start))
	n := 0
	for _, d := range pl.Changes {
		if d.Action != plan.NoOp {
			n++
		}
	}
	return n, nil
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "profile:", err)
	os.Exit(1)
}
