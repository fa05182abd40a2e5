// Package slurm drives a Slurm cluster for kiln's Slurm executor: it writes
// the batch script and sbatch options of a job (Request), submits it
// (sbatch --parsable), watches it (squeue, then sacct when the cluster keeps
// accounting), follows its output file, cancels it (scancel) and keeps a
// Journal of the jobs it submitted, so that a kiln that died while a job
// ran can find it again instead of submitting a second copy.
//
// It knows nothing of pipelines: what a job runs is a command line given by
// the caller (kiln's own `kiln job run SPEC`), and what a finished job
// means for a node is the caller's decision. Status reports Slurm's view:
// the state (PENDING with its reason, RUNNING on which nodes, a final state
// such as COMPLETED, FAILED, TIMEOUT, OUT_OF_MEMORY, NODE_FAIL, PREEMPTED or
// CANCELLED) and the exit code.
//
// Queries are batched: a Watcher asks squeue once per interval about every
// job it watches, whatever their number, and falls back to sacct for jobs
// squeue no longer knows (older than the controller's MinJobAge). Without
// slurmdbd sacct does not answer; a job that neither knows is reported with
// State Unknown and the caller decides from what the job itself wrote.
//
// Inside a job, JobEnv and Launch are what kiln gives the command: srun
// steps that inherit its environment (SLURM_EXPORT_ENV=ALL, where
// --export=NONE would leave them none), KILN_CPUS as Slurm gave them, the
// job's nodes, and the batch host's address and a free port for a
// launcher; Steps and WaitSteps tell when the steps it left have ended.
//
// A Request may be an array (Array: the element indices, with %a in its
// output path and command standing for an element's index) and may start
// after other jobs have completed (After: --dependency=afterok). An
// element is a job of its own to Query, Watcher and Cancel, named as Slurm
// names it, ARRAY_INDEX (ElementID): squeue is asked with -r, so that every
// element has its own line, pending ones included.
//
// Jobs are submitted with --no-requeue: Slurm never reruns a job behind
// kiln's back; the caller resubmits after NODE_FAIL or PREEMPTED as it is
// configured to, and journals the new job id.
//
// Locking: a Cluster is stateless and safe for concurrent use. A Watcher's
// poll loop is one goroutine; Wait may be called from many goroutines. A
// Journal writes one file per key atomically; callers serialise writes of
// the same key (kiln holds the store's key lock while a job is its own).
package slurm
