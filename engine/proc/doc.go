// Package proc runs the processes kiln's node kinds start. Each runs in its
// own process group, so that stopping it — on Ctrl-C, a timeout or a
// cancelled apply — reaches every process it started: the group gets
// SIGTERM, then SIGKILL after a grace period, and a member left behind after
// the leader exited is killed too. A process's exit is reported as an
// *ExitError with its status or signal, never as the raw os/exec error.
//
// Every process group Run starts (and every detached one a kind registers
// with Started) is known while it runs: KillAll reaches them all — what a
// second Ctrl-C does — and a Tracker in the context hears of each as it
// starts, which is how the engine journals them. A later kiln finds what a
// dead one left with Survivors: a group counts only while its leader runs
// with the recorded start time (/proc/PID/stat), never a recycled pid, and a
// process whose group was never journaled is found by the run folder in its
// environment (KILN_OUT).
//
// It also holds the small helpers kinds need around the commands they run
// and the machine they run on: the tail of a command's output for error
// messages, a minimal environment for probes, the machine's architecture
// as install paths spell it, and key=value files such as version.info.
package proc
