package proc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Stat is what kiln reads of /proc/PID/stat.
type Stat struct {
	State byte   // field 3: R, S, D, Z, X, ...
	PGID  int    // field 5: the process group
	Start uint64 // field 22: start time, in clock ticks after boot
}

// Dead reports whether the process has exited (a zombie not yet reaped).
func (s Stat) Dead() bool { return s.State == 'Z' || s.State == 'X' || s.State == 'x' }

// ReadStat reads /proc/PID/stat; the error wraps fs.ErrNotExist when there is
// no such process.
func ReadStat(pid int) (Stat, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Stat{}, err
	}
	return ParseStat(string(b))
}

// ParseStat parses a /proc/PID/stat line. The command name (field 2) may hold
// spaces and parentheses, so fields are counted after its last ")".
func ParseStat(line string) (Stat, error) {
	i := strings.LastIndexByte(line, ')')
	if i < 0 {
		return Stat{}, fmt.Errorf("malformed /proc stat line %q", line)
	}
	f := strings.Fields(line[i+1:]) // f[0] is field 3
	if len(f) < 20 || len(f[0]) != 1 {
		return Stat{}, fmt.Errorf("malformed /proc stat line %q", line)
	}
	pgrp, err1 := strconv.Atoi(f[2])
	start, err2 := strconv.ParseUint(f[19], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return Stat{}, fmt.Errorf("malformed /proc stat line %q: %w", line, err)
	}
	return Stat{State: f[0][0], PGID: pgrp, Start: start}, nil
}

// pids lists the processes in /proc.
func pids() []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil && pid > 0 {
			out = append(out, pid)
		}
	}
	return out
}

// GroupMembers lists the live processes of process group pgid.
func GroupMembers(pgid int) []int {
	var out []int
	for _, pid := range pids() {
		if st, err := ReadStat(pid); err == nil && st.PGID == pgid && !st.Dead() {
			out = append(out, pid)
		}
	}
	return out
}

// KillGroup signals every process of group pgid; a group that is already
// gone is not an error.
func KillGroup(pgid int, sig syscall.Signal) error {
	if pgid <= 1 {
		return fmt.Errorf("refusing to signal process group %d", pgid)
	}
	if err := syscall.Kill(-pgid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("sending %v to process group %d: %w", sig, pgid, err)
	}
	return nil
}

// hasEnv reports whether process pid's environment, as it was when it
// started, holds the entry kv ("NAME=value"). A process of another user, or
// one that is gone, does not.
func hasEnv(pid int, kv string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	for _, e := range bytes.Split(b, []byte{0}) {
		if string(e) == kv {
			return true
		}
	}
	return false
}
