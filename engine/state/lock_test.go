package state

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestLockInProcess(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".kiln") // created by AcquireLock
	holder := Holder{PID: 123, Host: "h", Started: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), Command: "kiln apply -var x=1"}
	first, err := AcquireLock(dir, holder)
	if err != nil {
		t.Fatal(err)
	}

	// flock is per open file description, so a second open in this process
	// conflicts like another process would.
	_, err = AcquireLock(dir, Holder{PID: 456})
	var le *LockedError
	if !errors.As(err, &le) {
		t.Fatalf("second AcquireLock = %v, want *LockedError", err)
	}
	if diff := cmp.Diff(holder, le.Holder); diff != "" {
		t.Errorf("holder named by the error (-want +got):\n%s", diff)
	}
	want := "another kiln apply holds the lock on " + dir + ": pid 123 on host h, started 2026-03-01T12:00:00Z (kiln apply -var x=1); wait for it or stop it"
	if err.Error() != want {
		t.Errorf("error:\n got %q\nwant %q", err.Error(), want)
	}

	if err := first.Release(); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, lockName)); len(data) != 0 {
		t.Errorf("Release left holder details: %q", data)
	}
	second, err := AcquireLock(dir, Holder{PID: 456})
	if err != nil {
		t.Fatalf("AcquireLock after Release: %v", err)
	}
	if err := second.Release(); err != nil {
		t.Fatal(err)
	}
	if err := second.Release(); err != nil {
		t.Errorf("second Release = %v, want nil", err)
	}
}

func TestLockedErrorUnknownHolder(t *testing.T) {
	err := &LockedError{Dir: "/p/.kiln"}
	if !strings.Contains(err.Error(), "holder unknown") {
		t.Errorf("error for a holder that wrote nothing yet: %q", err)
	}
}

const lockHelperEnv = "KILN_STATE_TEST_LOCK_DIR"

// TestLockHelperProcess is not a test: run as a child process by
// TestLockReleasedWhenHolderKilled, it takes the lock, says so and waits.
func TestLockHelperProcess(t *testing.T) {
	dir := os.Getenv(lockHelperEnv)
	if dir == "" {
		t.Skip("runs only as a helper process")
	}
	l, err := AcquireLock(dir, Holder{PID: os.Getpid(), Host: "helper-host", Started: time.Now(), Command: "kiln apply helper"})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(2)
	}
	fmt.Println("locked")
	io.Copy(io.Discard, os.Stdin) // until the parent kills us or goes away
	l.Release()
	os.Exit(0)
}

func TestLockReleasedWhenHolderKilled(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockHelperProcess$")
	cmd.Env = append(os.Environ(), lockHelperEnv+"="+dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "locked\n" {
		t.Fatalf("helper said %q, %v", line, err)
	}

	_, err = AcquireLock(dir, Holder{PID: os.Getpid()})
	var le *LockedError
	if !errors.As(err, &le) || le.Holder.PID != cmd.Process.Pid {
		t.Fatalf("AcquireLock while the helper holds it = %v, want *LockedError naming pid %d", err, cmd.Process.Pid)
	}
	if msg := err.Error(); !strings.Contains(msg, fmt.Sprintf("pid %d on host helper-host", cmd.Process.Pid)) || !strings.Contains(msg, "(kiln apply helper)") {
		t.Errorf("error does not name the holder: %q", msg)
	}

	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait() // reports the kill
	l, err := AcquireLock(dir, Holder{PID: os.Getpid()})
	if err != nil {
		t.Fatalf("AcquireLock after the holder was killed: %v", err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
}

// TestLockRemovesStaleTemps: temporary files a killed kiln left while it
// wrote the snapshot or replaced a link are removed once the lock is taken;
// recent ones in the cache folder, which plan writes without the lock, stay.
func TestLockRemovesStaleTemps(t *testing.T) {
	dir := t.TempDir()
	stale := []string{".state.json.tmp-123", ".state.json.backup.tmp", "tmp/exec.a.link-0011"}
	keep := []string{"state.json", "cache/.stat.tmp-9", "cache/stat", "out/exec.a"}
	for _, n := range append(append([]string{}, stale...), keep...) {
		writeFile(t, filepath.Join(dir, n), "x")
	}
	// A cache temporary file whose writer is gone goes however recent it
	// is; one whose writer still runs (a plan) stays.
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	gone := fmt.Sprintf("cache/.noop.tmp-%d-123", dead.Process.Pid)
	writeFile(t, filepath.Join(dir, gone), "x")
	stale = append(stale, gone)
	plan := exec.Command("sleep", "60")
	if err := plan.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = plan.Process.Kill(); _ = plan.Wait() }()
	running := fmt.Sprintf("cache/.stat.tmp-%d-456", plan.Process.Pid)
	writeFile(t, filepath.Join(dir, running), "x")
	keep = append(keep, running)
	old := filepath.Join(dir, "cache/.quick.tmp-1")
	writeFile(t, old, "x")
	hour := time.Now().Add(-time.Hour)
	if err := os.Chtimes(old, hour, hour); err != nil {
		t.Fatal(err)
	}
	l, err := AcquireLock(dir, Holder{PID: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	for _, n := range append(stale, "cache/.quick.tmp-1") {
		if _, err := os.Lstat(filepath.Join(dir, n)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s survived taking the lock: %v", n, err)
		}
	}
	for _, n := range keep {
		if _, err := os.Lstat(filepath.Join(dir, n)); err != nil {
			t.Errorf("%s was removed: %v", n, err)
		}
	}
}
