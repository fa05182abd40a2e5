package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCancelStopsProcessGroup runs a stand-in for git that starts a child
// and waits; cancelling the build must end both, also when they ignore
// SIGTERM.
func TestCancelStopsProcessGroup(t *testing.T) {
	tests := []struct{ name, trap string }{
		{"exits on SIGTERM", ""},
		{"ignores SIGTERM", "trap '' TERM"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			pidFile := filepath.Join(dir, "child.pid")
			script := filepath.Join(dir, "git")
			// The child holds no pipe of git's, so only a signal to the group ends it.
			body := fmt.Sprintf("#!/bin/sh\n%s\nsleep 300 </dev/null >/dev/null 2>&1 &\necho $! > %s.tmp && mv %s.tmp %s\nwait\n", tt.trap, pidFile, pidFile, pidFile)
			if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
				t.Fatal(err)
			}
			r := &Repo{Git: script, KillGrace: 100 * time.Millisecond}
			b := testBuild(t, decode(t, pinned("https://example.com/r.git", sha1)), t.TempDir(), t.TempDir())

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			errc := make(chan error, 1)
			go func() {
				_, err := r.Build(ctx, b)
				errc <- err
			}()
			pid := waitForPID(t, pidFile)
			t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
			cancel()
			if err := <-errc; !errors.Is(err, context.Canceled) {
				t.Fatalf("Build error = %v, want context.Canceled", err)
			}
			waitGone(t, pid)
		})
	}
}

func waitForPID(t *testing.T, path string) int {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(path); err == nil {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			return pid
		}
	}
	t.Fatal("the stand-in for git never started its child")
	return 0
}

// waitGone waits until pid has exited (gone, or a zombie nobody reaped).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return
		}
		if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && strings.HasPrefix(string(stat[i+1:]), " Z") {
			return
		}
	}
	t.Errorf("child %d of the cancelled git still runs", pid)
}
