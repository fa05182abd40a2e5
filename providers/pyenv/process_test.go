package pyenv

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// A command that ignores SIGTERM is killed once the grace period is over,
// and the error says it was stopped.
func TestRunCancelKillsGroup(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	ctx, cancel := context.WithCancel(context.Background())
	var log bytes.Buffer
	started := make(chan struct{})
	w := &signalWriter{w: &log, ready: started}
	errc := make(chan error, 1)
	go func() {
		errc <- run(ctx, command{Path: sh, Args: []string{"-c", `trap "" TERM; sleep 60 & echo $!; wait`}, Log: w}, 50*time.Millisecond)
	}()
	<-started
	cancel()
	err = <-errc
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "stopped") {
		t.Errorf("err = %v; want it to say the command was stopped by cancellation", err)
	}
	// The background sleep was in the group too: it must be dead (gone, or a
	// zombie waiting for its new parent to reap it).
	// SIGKILL is delivered asynchronously, so give it a moment to land.
	pid := strings.TrimSpace(log.String())
	state := ""
	for range 100 {
		if state = procState(pid); state == "" || state == "Z" {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("sleep (pid %s) survived the group kill: state %s", pid, state)
}

// procState is the state letter of a process, "" when it is gone.
func procState(pid string) string {
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return ""
	}
	// The command name in parentheses may hold spaces: the state follows it.
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2 : i+3]
	}
	return "?"
}

// signalWriter closes ready on the first write.
type signalWriter struct {
	w     io.Writer
	ready chan struct{}
	once  sync.Once
}

func (s *signalWriter) Write(p []byte) (int, error) {
	s.once.Do(func() { close(s.ready) })
	return s.w.Write(p)
}

func TestRunFailureNamesCommand(t *testing.T) {
	var log bytes.Buffer
	err := run(context.Background(), command{Path: "/bin/sh", Args: []string{"-c", "echo oops >&2; exit 3"}, Log: &log}, time.Second)
	if err == nil || !strings.Contains(err.Error(), "/bin/sh -c echo oops >&2; exit 3: exit status 3") {
		t.Errorf("err = %v", err)
	}
	if log.String() != "oops\n" {
		t.Errorf("log = %q", log.String())
	}
}
