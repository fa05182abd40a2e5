package service

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"syscall"
	"time"

	"github.com/kilnbuild/kiln/engine/proc"
)

// Keys of Result.Attrs.
const (
	attrPID        = "pid"
	attrPGID       = "pgid"
	attrStartTime  = "start_time" // /proc/PID/stat field 22 of the started process
	attrStartedAt  = "started_at" // wall clock, RFC 3339, for people
	attrURL        = "url"
	attrLog        = "log"
	attrConfigHash = "config_hash"
	attrStopSignal = "stop_signal"
	attrStopGrace  = "stop_grace"
	attrStopCmd    = "stop_command" // JSON argv, only when the stop block has a command
	attrStopDir    = "stop_dir"
	attrStopEnv    = "stop_env" // JSON environment of the stop command
)

// recorded is a process as a record names it.
type recorded struct {
	pid, pgid int
	startTime uint64
}

// recordedProcess reads the process identity from a record's Attrs.
func recordedProcess(attrs map[string]string) (recorded, error) {
	pid, err1 := strconv.Atoi(attrs[attrPID])
	pgid, err2 := strconv.Atoi(attrs[attrPGID])
	start, err3 := strconv.ParseUint(attrs[attrStartTime], 10, 64)
	if err := errors.Join(err1, err2, err3); err != nil || pid <= 1 || pgid <= 1 {
		return recorded{}, fmt.Errorf("the record names no valid process (pid %q, pgid %q, start time %q)",
			attrs[attrPID], attrs[attrPGID], attrs[attrStartTime])
	}
	return recorded{pid: pid, pgid: pgid, startTime: start}, nil
}

// leaderGone says why the recorded process no longer runs, or "" when it
// does. A pid that now belongs to a process started at another time has been
// recycled: the service is gone.
func (r recorded) leaderGone() string {
	st, err := proc.ReadStat(r.pid)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("process %d is not running", r.pid)
	case err != nil:
		return fmt.Sprintf("process %d cannot be read: %v", r.pid, err)
	case st.Dead():
		return fmt.Sprintf("process %d has exited", r.pid)
	case st.Start != r.startTime:
		return fmt.Sprintf("process %d is gone (its pid now belongs to a process started at tick %d, not %d)",
			r.pid, st.Start, r.startTime)
	}
	return ""
}

// running reports whether anything of the recorded service still runs: the
// leader itself, or — once the leader has exited — members of its process
// group. A recycled leader pid means the old group is gone too, since the
// kernel does not reuse a pid while a group of that id exists.
func (r recorded) running() bool {
	st, err := proc.ReadStat(r.pid)
	if err == nil && !st.Dead() {
		return st.Start == r.startTime
	}
	return len(proc.GroupMembers(r.pgid)) > 0
}

// stopAttrs records how the process is stopped, so that a later kiln can
// stop it even after the configuration changed.
func stopAttrs(c *config, env []string, attrs map[string]string) {
	attrs[attrStopSignal] = strconv.Itoa(int(c.stop.signal))
	attrs[attrStopGrace] = c.stop.grace.String()
	if len(c.stop.command) == 0 {
		return
	}
	argv, _ := json.Marshal(c.stop.command)
	envJSON, _ := json.Marshal(env)
	attrs[attrStopCmd] = string(argv)
	attrs[attrStopDir] = c.dir
	attrs[attrStopEnv] = string(envJSON)
}

// stopFromAttrs reads what stopAttrs recorded; missing values are defaults.
func stopFromAttrs(attrs map[string]string) (stop stopConfig, dir string, env []string, err error) {
	stop = stopConfig{signal: syscall.SIGTERM, grace: defaultStopGrace}
	if s := attrs[attrStopSignal]; s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			return stop, "", nil, fmt.Errorf("recorded stop signal %q is not a signal number", s)
		}
		stop.signal = syscall.Signal(n)
	}
	if s := attrs[attrStopGrace]; s != "" {
		if stop.grace, err = time.ParseDuration(s); err != nil {
			return stop, "", nil, fmt.Errorf("recorded stop grace %q: %w", s, err)
		}
	}
	if s := attrs[attrStopCmd]; s != "" {
		if err := json.Unmarshal([]byte(s), &stop.command); err != nil {
			return stop, "", nil, fmt.Errorf("recorded stop command %q: %w", s, err)
		}
		if s := attrs[attrStopEnv]; s != "" {
			if err := json.Unmarshal([]byte(s), &env); err != nil {
				return stop, "", nil, fmt.Errorf("recorded stop environment: %w", err)
			}
		}
	}
	return stop, attrs[attrStopDir], env, nil
}
