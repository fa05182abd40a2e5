// Package service is the service node kind: a long-running process, such as
// a code-execution sandbox, that other nodes use while it runs.
//
// Build starts the command detached (its own session, stdin from /dev/null,
// output appended to service.log in the build's output folder) so that it
// outlives kiln, waits for its readiness probe, runs each post-start check
// once, and records the process (pid, process group, kernel start time) in
// the result's Attrs. A failed start never leaves a process behind. The
// process group is registered with engine/proc as soon as it starts (before
// the wait for readiness), so the engine journals it: should kiln die while
// the service starts, the next apply or destroy stops it.
//
// A list command's program is found by engine/proc's LookPath, as exec's
// is: at plan time through Program (kind.ProgramRunner), so it enters the
// key and a missing one blocks the node, and again by Build and by a stop
// command, on the PATH of the node's environment with env on top.
//
// Invariants: a recorded process is identified by pid and the start time from
// /proc/PID/stat, so a recycled pid is never mistaken for the service and
// never signalled. The digest is a hash of the configuration only, so a
// restart with the same configuration does not invalidate dependents. Stop is
// idempotent: a process that is already gone is a success.
//
// The command must run in the foreground (as with systemd's Type=simple): a
// process that exits before it is ready, even with status 0 after forking a
// daemon, fails the build at once.
//
// Readiness: the ready block's HTTP probe when it has a url; otherwise a TCP
// connect to port (on the host of url, 127.0.0.1 by default). Without a ready
// block the same TCP probe is used when port is set; a service with neither
// ready block nor port is ready once started.
//
// Locking: a Service value holds only settings and may be used by concurrent
// builds; each build owns its process and log file.
package service
