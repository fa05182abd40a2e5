package review

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/state"
	"github.com/kilnbuild/kiln/providers"
)

// writeState records successful runs with the given durations in dir, as
// an apply would.
func writeState(t *testing.T, dir string, runs map[string]time.Duration, resources map[string]map[string]int64) {
	t.Helper()
	lock, err := state.AcquireLock(dir, state.Holder{PID: os.Getpid(), Command: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	s, err := state.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	w, err := state.OpenWriter(dir, s)
	if err != nil {
		t.Fatal(err)
	}
	for a, d := range runs {
		rec := &state.Record{Addr: a, Kind: "exec", Key: "k", Digest: "d", Duration: d, Resources: resources[a]}
		if err := w.Commit(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestCostFromRecordedDurations(t *testing.T) {
	root := t.TempDir()
	up := newGitRepo(t, filepath.Join(root, "upstream"))
	pin1 := up.commit("one", map[string]string{"a.txt": "one\n"})
	pin2 := up.commit("two", map[string]string{"a.txt": "two\n"})
	repo := newGitRepo(t, filepath.Join(root, "work"))
	repo.commit("base", map[string]string{"pipeline.hcl": pipelineText(pin1, 1, ""), "data/raw.csv": "1,2\n"})
	repo.write(map[string]string{"pipeline.hcl": pipelineText(pin2, 1, `
exec "eval" {
  command   = "cat ${exec.report.out}/report.txt"
  resources = { npu = 2, cpu = 4 }
}
`)})
	stateDir := filepath.Join(repo.dir, ".kiln")
	writeState(t, stateDir, map[string]time.Duration{
		"git_repo.upstream": 90 * time.Second,
		"exec.train":        3 * time.Hour,
		"exec.prep":         time.Hour, // does not rerun: not counted
	}, map[string]map[string]int64{"exec.train": {"npu": 8}})

	r, err := Compare(context.Background(), Options{Path: repo.dir, Old: "HEAD", Kinds: providers.All()})
	if err != nil {
		t.Fatal(err)
	}
	secs := func(f float64) *float64 { return &f }
	want := Cost{
		State:   ".kiln",
		Seconds: 90 + 3*3600,
		Known:   2,
		Unknown: []string{"exec.report", "exec.eval"},
		Hours:   []ResourceHours{{Resource: "npu", Hours: 24}},
		Nodes: []NodeCost{
			{Address: "git_repo.upstream", Seconds: secs(90)},
			{Address: "exec.train", Seconds: secs(3 * 3600), Resources: map[string]int64{"npu": 8}},
			{Address: "exec.report"},
			{Address: "exec.eval", Resources: map[string]int64{"npu": 2, "cpu": 4}},
		},
	}
	if d := cmp.Diff(want, r.Cost); d != "" {
		t.Errorf("Cost (-want +got):\n%s", d)
	}

	// Another state folder can be named; a missing one means nothing ran.
	r, err = Compare(context.Background(), Options{Path: repo.dir, Old: "HEAD", Kinds: providers.All(), StateDir: filepath.Join(root, "none")})
	if err != nil {
		t.Fatal(err)
	}
	if r.Cost.Known != 0 || len(r.Cost.Unknown) != 4 || r.Cost.Seconds != 0 {
		t.Errorf("Cost without state = %+v", r.Cost)
	}
}

// TestCostCountsEveryMachineOfAJob: a Slurm job over two machines with 8
// NPUs each holds 16 NPUs for its duration.
func TestCostCountsEveryMachineOfAJob(t *testing.T) {
	root := t.TempDir()
	repo := newGitRepo(t, filepath.Join(root, "work"))
	pipeline := func(lr string) string {
		return `executor "slurm" "a2" {}

exec "train" {
  executor  = "slurm"
  resources = { npu = 8 }
  slurm {
    nodes = 2
  }
  command = "train --lr ` + lr + `"
}
`
	}
	repo.commit("base", map[string]string{"pipeline.hcl": pipeline("0.1")})
	repo.write(map[string]string{"pipeline.hcl": pipeline("0.2")})
	writeState(t, filepath.Join(repo.dir, ".kiln"), map[string]time.Duration{"exec.train": time.Hour}, map[string]map[string]int64{"exec.train": {"npu": 8}})
	r, err := Compare(context.Background(), Options{Path: repo.dir, Old: "HEAD", Kinds: providers.All()})
	if err != nil {
		t.Fatal(err)
	}
	if want := []ResourceHours{{Resource: "npu", Hours: 16}}; !cmp.Equal(r.Cost.Hours, want) {
		t.Errorf("NPU-hours of one hour on 2 machines × 8 NPUs: %+v, want %+v", r.Cost.Hours, want)
	}
}
