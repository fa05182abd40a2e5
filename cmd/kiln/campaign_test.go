package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kilnbuild/kiln/engine/state"
)

// The kill -9 campaign: a pipeline of campaignLayers×campaignWidth nodes is
// edited and applied again and again, each apply killed with SIGKILL at a
// random moment (seeded: the same edits and moments on every run), and then
// applied once to the end. Every node's result must then equal a clean
// build's of the same sources, no process of any run may still be running,
// and the state folder must hold no temporary file and no run folder that
// no record names.
const (
	campaignLayers = 10
	campaignWidth  = 20
	campaignRounds = 16
)

func TestKillCampaign(t *testing.T) {
	if _, err := exec.LookPath("kiln"); err != nil {
		t.Fatalf("kiln is not on PATH (TestMain puts this test binary there): %v", err)
	}
	r := rand.New(rand.NewPCG(7, 2026))
	pipeline := campaignPipeline(r)
	clean := filepath.Join(t.TempDir(), "clean")
	killed := filepath.Join(t.TempDir(), "killed")
	sources := make([]int, campaignWidth) // version of each source file
	for _, dir := range []string{clean, killed} {
		writeCampaign(t, dir, pipeline, sources)
	}

	start := time.Now()
	campaignApply(t, clean, 0)
	full := time.Since(start)

	// Kill moments are drawn below half an apply. An apply that finishes
	// before its kill (a round that changes little, or a machine less
	// loaded than during the clean build) does not count, and draws the
	// later moments below half of its own time instead: the campaign goes
	// on until campaignRounds applies were killed, or three times as many
	// rounds ran.
	bound := full / 2
	kills := 0
	for round := 0; kills < campaignRounds && round < 3*campaignRounds; round++ {
		// Each round edits a few sources (back to earlier versions too, so
		// results are restored as well as built), and its apply is killed
		// at a moment spread over a whole apply: while nodes run, between
		// them, or in the final state write.
		for range 1 + r.IntN(3) {
			sources[r.IntN(campaignWidth)] = r.IntN(3)
		}
		writeCampaign(t, killed, pipeline, sources)
		delay := time.Duration(r.Int64N(int64(bound)))
		if done, took := campaignApply(t, killed, delay); done {
			t.Logf("round %d: the apply finished in %s, before its kill at %s", round, took.Round(time.Millisecond), delay.Round(time.Millisecond))
			bound = max(took/2, time.Millisecond)
			continue
		}
		kills++
	}
	if kills < campaignRounds/2 {
		t.Fatalf("only %d applies were killed; the campaign tested too little", kills)
	}
	if done, _ := campaignApply(t, killed, 0); !done {
		t.Fatal("the last apply did not finish")
	}
	writeCampaign(t, clean, pipeline, sources)
	campaignApply(t, clean, 0)

	wrong := 0
	for l := range campaignLayers {
		for i := range campaignWidth {
			name := fmt.Sprintf(".kiln/out/exec.n_%d_%d/out", l, i)
			want, err := os.ReadFile(filepath.Join(clean, name))
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(killed, name))
			if err != nil || !bytes.Equal(got, want) {
				wrong++
				t.Errorf("%s: %q, %v; the clean build has %q", name, got, err, want)
			}
		}
	}
	orphans := campaignOrphans(t, killed)
	leaks := campaignLeaks(t, killed)
	out, err := exec.Command("kiln", "plan", killed).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "No changes.") {
		t.Errorf("plan after the campaign: %v\n%s", err, out)
	}
	t.Logf("%d kills: %d wrong results, %d orphans, %d leaked files (clean apply %s)",
		kills, wrong, len(orphans), len(leaks), full.Round(time.Millisecond))
	if len(orphans) > 0 {
		t.Errorf("processes of killed applies still run: %v", orphans)
	}
	if len(leaks) > 0 {
		t.Errorf("left in the state folder: %v", leaks)
	}
}

// campaignPipeline writes the pipeline: layer 0 hashes its input file,
// every later node hashes its own name and two results of the layer below,
// in two steps, after a short random pause.
func campaignPipeline(r *rand.Rand) string {
	var b strings.Builder
	for l := range campaignLayers {
		for i := range campaignWidth {
			sleep := fmt.Sprintf("sleep 0.0%d", 1+r.IntN(5))
			fmt.Fprintf(&b, "exec \"n_%d_%d\" {\n", l, i)
			if l == 0 {
				fmt.Fprintf(&b, "  inputs  = [\"src/%d.txt\"]\n", i)
				fmt.Fprintf(&b, "  command = \"%s; { echo n_%d_%d; cat src/%d.txt; } > $KILN_OUT/part; cksum < $KILN_OUT/part > $KILN_OUT/out; rm $KILN_OUT/part\"\n", sleep, l, i, i)
			} else {
				a, c := i, (i*7+3)%campaignWidth
				fmt.Fprintf(&b, "  command = \"%s; { echo n_%d_%d; cat ${exec.n_%d_%d.out}/out ${exec.n_%d_%d.out}/out; } > $KILN_OUT/part; cksum < $KILN_OUT/part > $KILN_OUT/out; rm $KILN_OUT/part\"\n", sleep, l, i, l-1, a, l-1, c)
			}
			b.WriteString("}\n\n")
		}
	}
	return b.String()
}

// writeCampaign writes the pipeline and its sources, source i at version
// sources[i].
func writeCampaign(t *testing.T, dir, pipeline string, sources []int) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"pipeline.hcl": pipeline}
	for i, v := range sources {
		files[fmt.Sprintf("src/%d.txt", i)] = fmt.Sprintf("source %d version %d\n", i, v)
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// campaignApply runs kiln apply in dir and, when kill is not zero, sends it
// SIGKILL after that long. It reports whether the apply finished by itself,
// and how long it ran.
func campaignApply(t *testing.T, dir string, kill time.Duration) (done bool, took time.Duration) {
	t.Helper()
	start := time.Now()
	cmd := exec.Command("kiln", "apply", "-parallelism", "4", "-quiet", dir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	if kill == 0 {
		if err := <-exited; err != nil {
			t.Fatalf("kiln apply: %v\n%s", err, out.String())
		}
		return true, time.Since(start)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("kiln apply: %v\n%s", err, out.String())
		}
		return true, time.Since(start)
	case <-time.After(kill):
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	err := <-exited
	var exit *exec.ExitError
	if err == nil || !errors.As(err, &exit) || exit.ProcessState.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		return err == nil, time.Since(start) // it finished just before the signal
	}
	return false, time.Since(start)
}

// campaignOrphans lists the processes still running whose run folder is
// in dir's store.
func campaignOrphans(t *testing.T, dir string) []int {
	t.Helper()
	marker := []byte("KILN_OUT=" + filepath.Join(dir, ".kiln", "store") + "/")
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && strings.Contains(string(stat), ") Z ") {
			continue
		}
		for _, kv := range bytes.Split(env, []byte{0}) {
			if bytes.HasPrefix(kv, marker) {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

// campaignLeaks lists temporary files in the state folder, the journal of
// running processes, and run folders that no record names.
func campaignLeaks(t *testing.T, dir string) []string {
	t.Helper()
	kiln := filepath.Join(dir, ".kiln")
	var out []string
	err := filepath.WalkDir(kiln, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(kiln, p)
		if strings.HasPrefix(rel, "store/") && d.IsDir() && strings.Count(rel, "/") == 2 {
			return filepath.SkipDir // a run folder: what the command wrote
		}
		name := d.Name()
		if strings.Contains(name, ".tmp") || rel == "running" || strings.HasPrefix(rel, "tmp/") {
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := state.Load(kiln)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := state.OpenStore(kiln).Runs()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range runs {
		if !s.Referenced(e) {
			out = append(out, "store run "+e+" (no record names it)")
		}
	}
	return out
}
