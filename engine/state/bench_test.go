package state

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/kilnbuild/kiln/engine/hash"
)

// sampleRecord is a record of realistic size (about 1.3 KB as JSON): a key
// of a dozen labelled lines, a few attributes and resources.
func sampleRecord(i int) *Record {
	addr := fmt.Sprintf(`exec.sweep["cfg-%05d"]`, i)
	key := fmt.Sprintf("%064x", i*7919+1)
	lines := []hash.Line{
		{Label: "format", Value: hash.FormatVersion},
		{Label: "kind", Subject: "exec", Value: "1"},
		{Label: "attr", Subject: "command", Value: fmt.Sprintf("%q", fmt.Sprintf("python train.py --seed %d", i))},
		{Label: "input", Subject: "configs/sft.yaml", Value: fmt.Sprintf("%064x", i+1)},
		{Label: "input", Subject: "recipe/retool/retool_sft_preprocess.py", Value: fmt.Sprintf("%064x", i+2)},
		{Label: "dep", Subject: "1", Value: fmt.Sprintf("%064x", i+3), Note: "git_repo.verl"},
		{Label: "dep", Subject: "2", Value: fmt.Sprintf("%064x", i+4), Note: "python_env.train"},
		{Label: "fact", Subject: "toolchain.version", Value: "cann 8.1.RC1"},
		{Label: "fact", Subject: "host.npu_count", Value: "8"},
		{Label: "env", Subject: "HOME", Value: fmt.Sprintf("%064x", i+5)},
		{Label: "env", Subject: "WANDB_MODE", Value: fmt.Sprintf("%064x", i+6)},
	}
	return &Record{
		Addr: addr, Kind: "exec", Key: key, KeyLines: lines,
		Digest: fmt.Sprintf("%064x", i*31+5), Entry: key,
		Attrs:     map[string]string{"exit_code": "0", "pid": fmt.Sprint(1000 + i)},
		Started:   time.Date(2026, 3, 1, 12, 0, 0, i, time.UTC),
		Duration:  time.Duration(i) * time.Millisecond,
		Resources: map[string]int64{"npu": 8},
		Log:       ".kiln/logs/" + key + ".log", Host: "a2-node-01", KilnVersion: "0.1.0",
	}
}

func BenchmarkLoad10k(b *testing.B) {
	dir := b.TempDir()
	s := newState()
	for i := range 10000 {
		r := sampleRecord(i)
		s.Records[r.Addr] = r
	}
	if err := compact(dir, s, 1); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fileSize(b, filepath.Join(dir, snapshotName)))
	start := cpuTime()
	for b.Loop() {
		got, err := Load(dir)
		if err != nil {
			b.Fatal(err)
		}
		if len(got.Records) != 10000 {
			b.Fatalf("loaded %d records", len(got.Records))
		}
	}
	// CPU time, unlike wall time, is not inflated by other load on the machine.
	b.ReportMetric(float64((cpuTime()-start).Milliseconds())/float64(b.N), "cpu-ms/op")
}

func fileSize(b *testing.B, path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return fi.Size()
}

// cpuTime is the user and system CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkCommit(b *testing.B) {
	dir := b.TempDir()
	s, err := Load(dir)
	if err != nil {
		b.Fatal(err)
	}
	w, err := OpenWriter(dir, s)
	if err != nil {
		b.Fatal(err)
	}
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			if err := w.Commit(sampleRecord(i % 10000)); err != nil {
				b.Error(err)
				return
			}
			i++
		}
	})
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
}
