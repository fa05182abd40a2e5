package run

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kilnbuild/kiln/engine/proc"
)

// TestLogWriteFailureDoesNotKillTheNode: when the log file cannot be
// written (here /dev/full, which fails every write with ENOSPC, as a full
// disk does), kiln keeps reading the node's output, so the node runs to
// its end instead of dying of SIGPIPE; the error is reported.
func TestLogWriteFailureDoesNotKillTheNode(t *testing.T) {
	var lines []string
	log, err := openLog("/dev/full", func(s string) { lines = append(lines, s) })
	if err != nil {
		t.Fatal(err)
	}
	// Far more output than a pipe holds, in many writes.
	cmd := exec.Command("sh", "-c", `i=0; while [ $i -lt 20000 ]; do echo "line $i of the node's output"; i=$((i+1)); done; echo done`)
	cmd.Stdout, cmd.Stderr = log, log
	runErr := proc.Run(context.Background(), cmd, time.Second)
	log.Close()
	if runErr != nil {
		t.Fatalf("the node failed: %v", runErr)
	}
	if tail := log.Tail(); len(tail) == 0 || tail[len(tail)-1] != "done" {
		t.Errorf("the output was not read to its end: tail %q", tail)
	}
	if len(lines) != 20001 {
		t.Errorf("%d lines reached the terminal, want 20001", len(lines))
	}
	problem := log.Problem()
	if !errors.Is(problem, syscall.ENOSPC) || !strings.Contains(problem.Error(), "disk full") || !strings.Contains(problem.Error(), "/dev/full") {
		t.Errorf("Problem() = %v, want the disk-full error naming the log", problem)
	}
}
