package proc

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"syscall"
	"time"
)

// ExitError is a process that ended unsuccessfully: with a status, or
// killed by a signal.
type ExitError struct {
	Code   int    // exit status; -1 when killed by a signal
	Signal string // the signal that killed it, if any
}

func (e *ExitError) Error() string {
	if e.Signal != "" {
		return "killed by signal " + e.Signal
	}
	return fmt.Sprintf("exit status %d", e.Code)
}

// ExitCode is the exit status (-1 when killed by a signal).
func (e *ExitError) ExitCode() int { return e.Code }

// Run starts cmd in its own process group and waits for it. When ctx ends
// first, the group gets SIGTERM, then SIGKILL after grace, and Run returns
// the context's cause. A process of the group that keeps cmd's output open
// after the leader exited is killed after grace rather than waited for.
// While it runs, the group is registered (see Started): KillAll reaches it,
// and the context's Tracker journals it.
func Run(ctx context.Context, cmd *exec.Cmd, grace time.Duration) error {
	return RunWith(ctx, cmd, grace, nil)
}

// RunWith is Run with start starting cmd (a sandbox's Start); nil is
// cmd.Start.
func RunWith(ctx context.Context, cmd *exec.Cmd, grace time.Duration, start func(*exec.Cmd) error) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	if cmd.WaitDelay == 0 {
		cmd.WaitDelay = grace
	}
	if start == nil {
		start = (*exec.Cmd).Start
	}
	if err := start(cmd); err != nil {
		return err
	}
	pgid := cmd.Process.Pid
	defer Release(Started(ctx, pgid))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(grace):
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			<-done
		}
		_ = syscall.Kill(-pgid, syscall.SIGKILL) // members that outlived the leader
		return context.Cause(ctx)
	}
	if errors.Is(err, exec.ErrWaitDelay) {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		err = nil
	}
	return exitError(err)
}

func exitError(err error) error {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return &ExitError{Code: -1, Signal: ws.Signal().String()}
		}
		return &ExitError{Code: exit.ExitCode()}
	}
	return err
}
