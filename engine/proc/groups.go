package proc

import (
	"context"
	"slices"
	"sync"
	"syscall"
	"time"
)

// Group is a process group kiln started: its id (the leader's pid) and the
// leader's start time, which tells the leader from a later process that was
// given the same pid.
type Group struct {
	PGID  int
	Start uint64
}

// Tracker learns of each process group started under a context, right after
// it started, so that it can journal it (see WithTracker).
type Tracker interface {
	GroupStarted(Group)
}

type trackerKey struct{}

// WithTracker returns a context under which Run and Started report every
// process group they start to t.
func WithTracker(ctx context.Context, t Tracker) context.Context {
	return context.WithValue(ctx, trackerKey{}, t)
}

// live holds the process groups this process started and still owns, for
// KillAll.
var live = struct {
	mu sync.Mutex
	m  map[int]Group
}{m: map[int]Group{}}

// Started registers the process group whose leader pid was just started (it
// must not have been waited for yet): KillAll reaches it from now on, and
// the context's Tracker is told. It returns the group; Start is 0 when the
// leader's start time could not be read (it exited and was reaped already).
func Started(ctx context.Context, pid int) Group {
	g := Group{PGID: pid}
	if st, err := ReadStat(pid); err == nil {
		g.Start = st.Start
	}
	live.mu.Lock()
	live.m[g.PGID] = g
	live.mu.Unlock()
	if t, ok := ctx.Value(trackerKey{}).(Tracker); ok {
		t.GroupStarted(g)
	}
	return g
}

// Release tells that group g is no longer this process's to stop: it has
// ended, or — a service — outlives kiln by design.
func Release(g Group) {
	live.mu.Lock()
	if live.m[g.PGID] == g {
		delete(live.m, g.PGID)
	}
	live.mu.Unlock()
}

// KillAll sends sig to every process group started with Run or Started and
// not released, and returns their ids, sorted. It is what a second Ctrl-C
// does.
func KillAll(sig syscall.Signal) []int {
	live.mu.Lock()
	var out []int
	for pgid := range live.m {
		out = append(out, pgid)
	}
	live.mu.Unlock()
	slices.Sort(out)
	for _, pgid := range out {
		_ = KillGroup(pgid, sig)
	}
	return out
}

// Process is one process, told from a later one with the same pid by its
// start time.
type Process struct {
	PID   int
	Start uint64
}

// Survivors finds the processes that still run of groups an earlier kiln
// started, or whose environment holds one of markers ("KILN_OUT=dir" of a
// run): the marker catches a process whose group was never journaled (kiln
// died right after starting it) or whose group leader has exited. A group
// counts only while its leader runs with the recorded start time: a pid,
// and so a group id, may have been given to an unrelated process since.
// The result is sorted by pid.
func Survivors(groups []Group, markers []string) []Process {
	verified := map[int]bool{}
	for _, g := range groups {
		if st, err := ReadStat(g.PGID); err == nil && !st.Dead() && g.Start != 0 && st.Start == g.Start {
			verified[g.PGID] = true
		}
	}
	var out []Process
	self := syscall.Getpid()
	for _, pid := range pids() {
		if pid == self {
			continue
		}
		st, err := ReadStat(pid)
		if err != nil || st.Dead() {
			continue
		}
		match := verified[st.PGID]
		for _, m := range markers {
			if match {
				break
			}
			match = hasEnv(pid, m)
		}
		if match {
			out = append(out, Process{PID: pid, Start: st.Start})
		}
	}
	return out
}

// signal sends sig to p if p is still that process.
func (p Process) signal(sig syscall.Signal) {
	if st, err := ReadStat(p.PID); err == nil && st.Start == p.Start && !st.Dead() {
		_ = syscall.Kill(p.PID, sig)
	}
}

// StopSurvivors stops what Survivors finds for groups and markers: SIGTERM
// to each process, SIGKILL to what still runs after grace, looking again
// each round so that children started meanwhile are caught too. It returns
// every process it signalled, sorted by pid, and those still running after
// SIGKILL.
func StopSurvivors(groups []Group, markers []string, grace time.Duration) (stopped, left []Process) {
	termed := map[Process]bool{}
	killAt := time.Now().Add(grace)
	giveUp := killAt.Add(5 * time.Second)
	for {
		found := Survivors(groups, markers)
		if len(found) == 0 {
			break
		}
		now := time.Now()
		if now.After(giveUp) {
			left = found
			break
		}
		for _, p := range found {
			if !termed[p] {
				termed[p] = true
				stopped = append(stopped, p)
				p.signal(syscall.SIGTERM)
			} else if now.After(killAt) {
				p.signal(syscall.SIGKILL)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	slices.SortFunc(stopped, func(a, b Process) int { return a.PID - b.PID })
	return stopped, left
}
