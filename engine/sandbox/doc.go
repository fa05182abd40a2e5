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
// unprivileged user namespaces, which many clusters turn off; kiln uses
// one, where it can, only to fix the paths (see Relocation below). Landlock is
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
// Relocation. A result must not depend on where the pipeline lives, or
// two checkouts (two hosts sharing a cache) build different bytes under
// one key. Where the machine allows it (Linux, root, which is how Ascend
// containers run), a sealed run sees its folders at fixed places, as a Nix
// build sees /nix/store: the pipeline folder at /kiln/root, its own run
// folder and each upstream's result at /kiln/out/KEY (the key of the run
// that made it, the same on every host), its temporary folder at
// /kiln/tmp. A View lists them; Policy.Start writes the command line,
// environment and working folder with those places instead of the host's
// paths, and the start thread, before Landlock, leaves kiln's mount
// namespace for one of its own (a slave of the host's, so nothing it
// mounts reaches the host) with a small tmpfs on /kiln and a bind mount
// for each place. /kiln itself is one empty folder on the host, made when
// missing, as Nix's installer makes /nix. Landlock's rules are on the
// host's folders and hold at the binds, which show the same folders.
//
// Why fixed places and not paths relative to a working folder (Bazel's
// execroot): tools write absolute paths whatever they are given (realpath,
// CMake, Python's __file__, a BAM's @PG line), and a fixed place gives
// them the same absolute path everywhere. Why keys: a result that names its
// own place, or an upstream's, finds it again in every later run that
// depends on it, on every host. A run's `..` from its result is /kiln/out,
// not the store: it reaches no other result. A path the command is given
// that climbs out of the pipeline folder ("$ROOT/../data") keeps the
// host's path, which is still there.
//
// Not relocated: a node with sandbox = false, a Slurm job (its srun steps
// start outside the job's namespace), and every run where Relocation says
// why not (not root, no mount namespaces, /kiln not empty). There, runs
// see the host's paths, and a tool that records them makes results that
// differ between checkouts. Processes outside the run's tree (a daemon
// the command talks to, docker run -v $KILN_OUT) see the host's paths,
// not the run's places.
//
// KILN_SANDBOX_WRITABLE (paths joined by ":") adds writable paths on this
// host for every run, as Bazel's --sandbox_writable_path does: a shared
// cache (ccache, a pip cache) or a test harness's counters. It never enters
// a key.
package sandbox
