// Package sandbox seals the processes of one run of a node: what they may
// write, what they may read inside the pipeline folder, the shell a string
// command runs in, and the environment every run starts from.
//
// A Policy names the run's writable paths (its run folder, its in-place
// outputs, its private temporary folder, the host's extra writable paths)
// and the paths it may read inside the pipeline folder (its declared
// inputs, its upstream results, its dir). Everything outside the pipeline
// folder stays readable: the system, datasets on other disks, /dev; /dev
// and /proc stay writable, as a process needs /dev/null, /dev/shm and
// /proc/self. Policy.Start starts a command under the policy.
//
// The mechanism is Landlock (Linux 5.13 and later), and why: it needs no
// privilege (no user namespace, no root, no setuid helper), so it works the
// same for a user on a shared login node, as root in an Ascend container,
// and in a Slurm job; it confines the whole process tree the command starts,
// whatever it execs; and it restricts access by path without changing the
// paths a process sees, so the tools that embed absolute paths (virtual
// environments, CMake) keep working. A mount namespace would need root or
// unprivileged user namespaces, which many clusters turn off. Landlock is
// applied to one locked OS thread just before that thread forks the
// command: the thread ends with the goroutine that locked it, so kiln itself
// is never restricted. The same thread leaves the process's shared file
// system state (unshare CLONE_FS) to set the run's umask without touching
// kiln's own.
//
// The names in the pipeline folder may be listed (a shell glob or a
// listdir over declared inputs needs that); the contents of a file there
// may be read only when it is declared.
//
// Landlock allows paths, it cannot deny a folder inside an allowed one: the
// pipeline folder is hidden by allowing, at each folder from / down to it,
// every entry but the one on the way. The folders on that way stay
// traversable but cannot be listed. Those entries are opened once per
// pipeline folder and kiln process (an apply's 10,000 runs share them), so
// an entry created there after the apply started is not readable to its
// runs.
//
// Where Landlock is missing (openEuler 22.03's 5.10, a kernel built
// without it) Probe says so and why, nothing is enforced, and the engine
// checks after each run that its upstream results did not change (see
// engine/run). Writes a command makes are then only detected, not stopped.
//
// What a run was refused reaches the user through its log: Denied reads
// the lines a refused access leaves ("Permission denied" with the path)
// and names the path, whose it is and the line to write instead.
//
// KILN_SANDBOX_WRITABLE (paths joined by ":") adds writable paths on this
// host for every run, as Bazel's --sandbox_writable_path does: a shared
// cache (ccache, a pip cache) or a test harness's counters. It never enters
// a key.
package sandbox
