package proc

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestExitStatus(t *testing.T) {
	err := Run(context.Background(), exec.Command("sh", "-c", "exit 3"), time.Second)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 3 || err.Error() != "exit status 3" {
		t.Fatalf("err = %v", err)
	}
	if err := Run(context.Background(), exec.Command("true"), time.Second); err != nil {
		t.Fatalf("true: %v", err)
	}
}

func TestCancelStopsTheWholeGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	// The shell starts a background child that ignores nothing, then waits.
	cmd := exec.Command("sh", "-c", "sleep 30 & echo $! > "+pidFile+"; wait")
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() {
		for {
			if b, err := os.ReadFile(pidFile); err == nil && strings.TrimSpace(string(b)) != "" {
				cancel(errors.New("stop requested"))
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	err := Run(ctx, cmd, 2*time.Second)
	if err == nil || err.Error() != "stop requested" {
		t.Fatalf("err = %v, want the context's cause", err)
	}
	b, _ := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		if !alive(pid) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("background child %d survived the cancellation", pid)
}

func TestSIGTERMIgnoredLeadsToSIGKILL(t *testing.T) {
	cmd := exec.Command("sh", "-c", "trap '' TERM; sleep 30")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := Run(ctx, cmd, 300*time.Millisecond)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Fatalf("took %s: SIGKILL did not follow", took)
	}
}

// alive reports whether pid runs (a zombie counts as gone).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}
