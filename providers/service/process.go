package service

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"github.com/kilnbuild/kiln/engine/proc"
	seal "github.com/kilnbuild/kiln/engine/sandbox"
)

// process is a service process this kiln started.
type process struct {
	pid       int
	startTime uint64        // /proc/PID/stat field 22, clock ticks since boot
	exited    chan struct{} // closed once the process has exited and been reaped
	waitErr   error         // how it exited; read only after exited is closed
}

// startDetached starts argv in its own session so it outlives kiln, with
// stdin from /dev/null and stdout and stderr appended to logPath, under
// policy when there is one.
func startDetached(argv []string, dir string, env []string, logPath string, policy *seal.Policy) (*process, error) {
	path, err := proc.LookPath(argv[0], dir, env)
	if err != nil {
		return nil, err
	}
	logFile, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening the service log: %w", err)
	}
	defer logFile.Close() // the child holds its own copy
	cmd := &exec.Cmd{
		Path:        path,
		Args:        argv,
		Dir:         dir,
		Env:         env,
		Stdout:      logFile,
		Stderr:      logFile,
		SysProcAttr: &syscall.SysProcAttr{Setsid: true},
	}
	start := cmd.Start
	if policy != nil {
		start = func() error { return policy.Start(cmd) }
	}
	if err := start(); err != nil {
		return nil, fmt.Errorf("starting %q in %s: %w", strings.Join(argv, " "), dir, err)
	}
	p := &process{pid: cmd.Process.Pid, exited: make(chan struct{})}
	// Until Wait reaps it the process stays readable in /proc, even if it
	// has already exited, so this read cannot miss it.
	st, statErr := proc.ReadStat(p.pid)
	p.startTime = st.Start
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	if statErr != nil {
		proc.KillGroup(p.pid, syscall.SIGKILL)
		<-p.exited
		return nil, fmt.Errorf("reading the start time of pid %d: %w", p.pid, statErr)
	}
	return p, nil
}

// exitDescription says how an exited process ended.
func (p *process) exitDescription() string {
	var ee *exec.ExitError
	if errors.As(p.waitErr, &ee) {
		return ee.ProcessState.String()
	}
	if p.waitErr != nil {
		return p.waitErr.Error()
	}
	return "exit status 0"
}
