package sched

import (
	"context"
	"testing"
)

// The scheduling overhead of 10,000 trivial tasks: fn returns at once, so
// the time is the scheduler's and the goroutine hand-offs'.

func chainTasks(n int) []Task {
	tasks := make([]Task, n)
	for i := 1; i < n; i++ {
		tasks[i].Deps = []int{i - 1}
	}
	return tasks
}

// layeredTasks returns layers of width tasks, each depending on three tasks
// of the layer before.
func layeredTasks(layers, width int) []Task {
	tasks := make([]Task, layers*width)
	for l := 1; l < layers; l++ {
		for k := range width {
			prev := (l - 1) * width
			tasks[l*width+k].Deps = []int{prev + k, prev + (k+1)%width, prev + (k+7)%width}
		}
	}
	return tasks
}

func benchmarkRun(b *testing.B, tasks []Task, o Options) {
	fn := func(ctx context.Context, i int) error { return nil }
	for b.Loop() {
		outcomes, _ := Run(context.Background(), tasks, o, fn)
		if outcomes[len(outcomes)-1] != Succeeded {
			b.Fatal("last task did not succeed")
		}
	}
}

func BenchmarkChain10k(b *testing.B) { benchmarkRun(b, chainTasks(10_000), Options{Parallelism: 8}) }

func BenchmarkLayered10k(b *testing.B) {
	benchmarkRun(b, layeredTasks(100, 100), Options{Parallelism: 8})
}

func BenchmarkLayered10kWithPools(b *testing.B) {
	tasks := layeredTasks(100, 100)
	for i := range tasks {
		tasks[i].Resources = map[string]int64{"npu": int64(1 + i%8)}
		tasks[i].Priority = i % 13
	}
	benchmarkRun(b, tasks, Options{Parallelism: 8, Capacity: map[string]int64{"npu": 8}})
}

// The same with the npu pool as 8 devices in two groups: every start
// places ids.
func BenchmarkLayered10kWithDevices(b *testing.B) {
	tasks := layeredTasks(100, 100)
	for i := range tasks {
		tasks[i].Resources = map[string]int64{"npu": int64(1 + i%8)}
		tasks[i].Priority = i % 13
	}
	benchmarkRun(b, tasks, Options{Parallelism: 8, Devices: map[string]Devices{
		"npu": {IDs: []int{0, 1, 2, 3, 4, 5, 6, 7}, Groups: [][]int{{0, 1, 2, 3}, {4, 5, 6, 7}}},
	}})
}

func BenchmarkCriticalPath10k(b *testing.B) {
	tasks := layeredTasks(100, 100)
	for b.Loop() {
		CriticalPath(tasks, nil)
	}
}
