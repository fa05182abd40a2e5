// Command bighash measures how fast kiln digests large files: the first
// hash of a folder of big files (an input or an output tree, through
// engine/hash as kiln plan and apply hash them) and its re-verification
// from the stat cache, against two ceilings measured in the same run — Go's
// SHA-256 over memory on every core (what no file hash can beat) and
// OpenSSL's SHA-256 (openssl dgst, which uses the CPU's SHA instructions as
// Go does; coreutils' sha256sum does not, and is several times slower) run
// on the files in parallel, one process per core: the peer.
//
//	go run ./bench/cmd/bighash -dir bench/out/big -files 4 -size 1024 -reps 5
//
// The files are written once (pseudo-random bytes) and read once before
// measuring, so every run reads them from the page cache; the machine needs
// that much free memory, or the figures measure the disk. Output: a table
// on stdout and, with -tsv, one line per sample for bench/run.sh.
package main

import (
	"bufio"
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kilnbuild/kiln/engine/hash"
)

func main() {
	dir := flag.String("dir", "bench/out/big", "folder of the big files (written when missing)")
	files := flag.Int("files", 4, "number of files")
	sizeMiB := flag.Int64("size", 1024, "size of each file in MiB")
	reps := flag.Int("reps", 5, "measurements of each row (the median is reported)")
	jobs := flag.Int("j", runtime.GOMAXPROCS(0), "openssl processes run at once")
	tsv := flag.String("tsv", "", "append every sample to this file, as bench/run.sh's samples (measure, tool, run, seconds, 0, cpu seconds)")
	flag.Parse()
	size := *sizeMiB << 20
	paths, err := ensure(*dir, *files, size)
	if err != nil {
		fail(err)
	}
	total := float64(int64(*files) * size)
	for _, p := range paths { // into the page cache
		if err := readAll(p); err != nil {
			fail(err)
		}
	}
	var out *os.File
	if *tsv != "" {
		if out, err = os.OpenFile(*tsv, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err != nil {
			fail(err)
		}
		defer out.Close()
	}
	sample := func(measure, tool string, run int, wall, cpu time.Duration) {
		if out != nil {
			fmt.Fprintf(out, "%s\t%s\t%d\t%.4f\t0\t%.3f\n", measure, tool, run, wall.Seconds(), cpu.Seconds())
		}
	}
	if out != nil {
		fmt.Fprintf(out, "big-bytes\tbighash\t1\t%.0f\t0\t0\n", total)
	}
	var first, firstCPU, sum, verify, ceiling []time.Duration
	var want hash.Digest
	for r := 1; r <= *reps; r++ {
		// The ceiling: SHA-256 of memory on every core, as long as the
		// files take to hash.
		w, _ := shaCeiling(total)
		ceiling = append(ceiling, w)
		sample("sha256-memory", "go", r, w, 0)

		c := hash.NewStatCache()
		t, cpu0 := time.Now(), cpuTime()
		d, err := hash.Tree(*dir, c)
		if err != nil {
			fail(err)
		}
		w, cpu := time.Since(t), cpuTime()-cpu0
		if r > 1 && d != want {
			fail(fmt.Errorf("digest %s, earlier %s", d, want))
		}
		want = d
		first, firstCPU = append(first, w), append(firstCPU, cpu)
		sample("first-hash", "kiln", r, w, cpu)

		t = time.Now()
		if err := opensslSum(paths, *jobs); err != nil {
			fail(err)
		}
		w = time.Since(t)
		sum = append(sum, w)
		sample("first-hash", "openssl", r, w, 0)

		// Re-verify: the cache of the first hash, as the next plan loads it.
		t, cpu0 = time.Now(), cpuTime()
		if d, err := hash.Tree(*dir, c); err != nil || d != want {
			fail(fmt.Errorf("re-verify: %s, %v", d, err))
		}
		w, cpu = time.Since(t), cpuTime()-cpu0
		verify = append(verify, w)
		sample("re-verify", "kiln", r, w, cpu)
	}
	gbs := func(d time.Duration) float64 { return total / d.Seconds() / 1e9 }
	fmt.Printf("%d x %d MiB in %s, %d cores, %d runs (medians):\n", *files, *sizeMiB, *dir, runtime.GOMAXPROCS(0), *reps)
	fmt.Printf("  %-44s %8.3f s  %5.2f GB/s (%.2f GB per CPU-second)\n", "kiln, first hash (hash.Tree, cold stat cache)", median(first).Seconds(), gbs(median(first)), total/median(firstCPU).Seconds()/1e9)
	fmt.Printf("  %-44s %8.3f s  %5.2f GB/s\n", fmt.Sprintf("openssl dgst -sha256, %d at a time", *jobs), median(sum).Seconds(), gbs(median(sum)))
	fmt.Printf("  %-44s %8.3f s  %5.2f GB/s\n", "SHA-256 of memory on every core (ceiling)", median(ceiling).Seconds(), gbs(median(ceiling)))
	fmt.Printf("  %-44s %8.2f ms\n", "kiln, re-verify from the stat cache", float64(median(verify).Microseconds())/1000)
}

// ensure writes the files under dir unless they exist with the right size.
func ensure(dir string, n int, size int64) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("shard-%02d.bin", i))
		paths = append(paths, p)
		if fi, err := os.Stat(p); err == nil && fi.Size() == size {
			continue
		}
		f, err := os.Create(p)
		if err != nil {
			return nil, err
		}
		w := bufio.NewWriterSize(f, 1<<20)
		r := rand.NewChaCha8([32]byte{byte(i)})
		if _, err := io.CopyN(w, r, size); err != nil {
			f.Close()
			return nil, err
		}
		if err := w.Flush(); err != nil {
			f.Close()
			return nil, err
		}
		if err := f.Close(); err != nil {
			return nil, err
		}
	}
	// Files older than the stat cache's racy window are cached, as files
	// written long before a plan are.
	time.Sleep(2100 * time.Millisecond)
	return paths, nil
}

func readAll(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(io.Discard, f)
	return err
}

// shaCeiling hashes total bytes of memory split over every core and returns
// the wall time.
func shaCeiling(total float64) (time.Duration, error) {
	buf := make([]byte, 1<<20)
	workers := runtime.GOMAXPROCS(0)
	per := int(total) / workers / len(buf)
	t := time.Now()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			h := sha256.New()
			for range per {
				h.Write(buf)
			}
			h.Sum(nil)
		})
	}
	wg.Wait()
	return time.Since(t), nil
}

func opensslSum(paths []string, jobs int) error {
	cmd := exec.Command("xargs", "-P", fmt.Sprint(jobs), "-n", "1", "openssl", "dgst", "-sha256")
	in := ""
	for _, p := range paths {
		in += p + "\n"
	}
	cmd.Stdin = strings.NewReader(in)
	cmd.Stdout = io.Discard
	cmd.Stderr = os.Stderr
	return cmd.Run()
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bighash:", err)
	os.Exit(1)
}
