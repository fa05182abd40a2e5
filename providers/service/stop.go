package service

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/proc"
	"golang.org/x/sys/unix"
)

const (
	pollEvery = 50 * time.Millisecond
	killWait  = 5 * time.Second // how long a SIGKILLed group may take to vanish
)

// Stop ends the process a build started: the recorded stop command if the
// configuration had one (with KILN_SERVICE_PID and KILN_SERVICE_PGID set),
// else the recorded signal to its process group; after
// the grace period the group gets SIGKILL. A process that is already gone,
// or whose pid now belongs to another process, is a success. Messages go to
// the service's own log.
func (s *Service) Stop(ctx context.Context, n *kind.Node, rec *kind.Record) error {
	if rec == nil || rec.Attrs[attrPID] == "" {
		return nil
	}
	r, err := recordedProcess(rec.Attrs)
	if err != nil {
		return fmt.Errorf("stopping %s: %w", n.Addr, err)
	}
	stop, dir, env, err := stopFromAttrs(rec.Attrs)
	if err != nil {
		return fmt.Errorf("stopping %s: %w", n.Addr, err)
	}
	log := io.Discard
	if path := rec.Attrs[attrLog]; path != "" {
		if f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0); err == nil {
			defer f.Close()
			log = f
		}
	}
	if err := stopProcess(ctx, r, stop, dir, env, log); err != nil {
		return fmt.Errorf("stopping %s: %w", n.Addr, err)
	}
	return nil
}

// stopProcess stops a recorded process and waits until its whole process
// group is gone.
func stopProcess(ctx context.Context, r recorded, stop stopConfig, dir string, env []string, log io.Writer) error {
	if !r.running() {
		return nil
	}
	deadline := time.Now().Add(stop.grace)
	signalled := false
	if len(stop.command) > 0 {
		fmt.Fprintf(log, "kiln: stopping pid %d with %q\n", r.pid, strings.Join(stop.command, " "))
		env := append(append([]string{}, env...),
			"KILN_SERVICE_PID="+strconv.Itoa(r.pid), "KILN_SERVICE_PGID="+strconv.Itoa(r.pgid))
		if err := runStopCommand(ctx, stop.command, dir, env, log, stop.grace); err != nil {
			fmt.Fprintf(log, "kiln: stop command failed (%v); sending %s instead\n", err, unix.SignalName(stop.signal))
		} else {
			signalled = true
		}
	}
	if !signalled {
		fmt.Fprintf(log, "kiln: sending %s to process group %d\n", unix.SignalName(stop.signal), r.pgid)
		if err := proc.KillGroup(r.pgid, stop.signal); err != nil {
			return err
		}
	}
	if waitGone(ctx, r, deadline) {
		return nil
	}
	fmt.Fprintf(log, "kiln: process group %d still running after %s: sending SIGKILL\n", r.pgid, stop.grace)
	if err := proc.KillGroup(r.pgid, syscall.SIGKILL); err != nil {
		return err
	}
	if waitGone(context.WithoutCancel(ctx), r, time.Now().Add(killWait)) {
		return nil
	}
	return fmt.Errorf("process group %d (pids %v) is still running after SIGKILL: check them with `ps -g %d`",
		r.pgid, proc.GroupMembers(r.pgid), r.pgid)
}

// waitGone polls until nothing of r runs (true), the deadline passes or ctx
// ends (false).
func waitGone(ctx context.Context, r recorded, deadline time.Time) bool {
	t := time.NewTicker(pollEvery)
	defer t.Stop()
	for {
		if !r.running() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		select {
		case <-ctx.Done():
			return !r.running()
		case <-t.C:
		}
	}
}

// runStopCommand runs the configured stop command in its own process group,
// killing that group if it outlasts the grace period.
func runStopCommand(ctx context.Context, argv []string, dir string, env []string, log io.Writer, grace time.Duration) error {
	path, err := proc.LookPath(argv[0], dir, env)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, grace)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, argv[1:]...)
	cmd.Args[0] = argv[0]
	cmd.Dir = dir
	cmd.Env = append([]string{}, env...) // never kiln's own environment
	cmd.Stdout = log
	cmd.Stderr = log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return proc.KillGroup(cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%q: %w", strings.Join(argv, " "), err)
	}
	return nil
}
