package service

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// process is a service process this kiln started.
type process struct {
	pid       int
	startTime uint64        // /proc/PID/stat field 22, clock ticks since boot
	exited    chan struct{} // closed once the process has exited and been reaped
	waitErr   error         // how it exited; read only after exited is closed
}

// startDetached starts argv in its own session so it outlives kiln, with
// stdin from /dev/null and stdout and stderr appended to logPath.
func startDetached(argv []string, dir string, env []string, logPath string) (*process, error) {
	path, err := lookPath(argv[0], env)
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
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %q in %s: %w", strings.Join(argv, " "), dir, err)
	}
	p := &process{pid: cmd.Process.Pid, exited: make(chan struct{})}
	// Until Wait reaps it the process stays readable in /proc, even if it
	// has already exited, so this read cannot miss it.
	st, statErr := readStat(p.pid)
	p.startTime = st.startTime
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	if statErr != nil {
		killGroup(p.pid, syscall.SIGKILL)
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

// lookPath finds a program on the PATH of env (not kiln's own PATH). A name
// with a slash is used as given; a relative one is resolved against the
// working folder by the kernel.
func lookPath(name string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	pathList := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathList = v
		}
	}
	for _, dir := range filepath.SplitList(pathList) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("program %q not found on the service's PATH %q: install it, give its absolute path, or set PATH in env", name, pathList)
}

// procStat is what kiln reads of /proc/PID/stat.
type procStat struct {
	state     byte   // field 3: R, S, D, Z, X, ...
	pgrp      int    // field 5
	startTime uint64 // field 22
}

// readStat reads /proc/PID/stat; the error wraps fs.ErrNotExist when there is
// no such process.
func readStat(pid int) (procStat, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, err
	}
	return parseStat(string(b))
}

// parseStat parses a /proc/PID/stat line. The command name (field 2) may hold
// spaces and parentheses, so fields are counted after its last ")".
func parseStat(line string) (procStat, error) {
	i := strings.LastIndexByte(line, ')')
	if i < 0 {
		return procStat{}, fmt.Errorf("malformed /proc stat line %q", line)
	}
	f := strings.Fields(line[i+1:]) // f[0] is field 3
	if len(f) < 20 || len(f[0]) != 1 {
		return procStat{}, fmt.Errorf("malformed /proc stat line %q", line)
	}
	pgrp, err1 := strconv.Atoi(f[2])
	start, err2 := strconv.ParseUint(f[19], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return procStat{}, fmt.Errorf("malformed /proc stat line %q: %w", line, err)
	}
	return procStat{state: f[0][0], pgrp: pgrp, startTime: start}, nil
}

// dead reports whether a state is a process that has exited.
func (s procStat) dead() bool { return s.state == 'Z' || s.state == 'X' || s.state == 'x' }

// groupMembers lists the live processes of process group pgid.
func groupMembers(pgid int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, err := readStat(pid); err == nil && st.pgrp == pgid && !st.dead() {
			pids = append(pids, pid)
		}
	}
	return pids
}

// killGroup signals every process of group pgid; a group that is already
// gone is not an error.
func killGroup(pgid int, sig syscall.Signal) error {
	if pgid <= 1 {
		return fmt.Errorf("refusing to signal process group %d", pgid)
	}
	if err := syscall.Kill(-pgid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("sending %v to process group %d: %w", sig, pgid, err)
	}
	return nil
}
