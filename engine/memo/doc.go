// Package memo keeps, for a pipeline that a plan or an apply has just found
// wholly up to date, what each node's decision rested on, so that the next
// plan can be made without loading the pipeline: one file,
// .kiln/cache/memo, in a checksummed binary format (format.go).
//
// The memo holds a header for the whole pipeline — a digest of its files,
// lock, variable files, variables and KILN_VAR_ environment with kiln's
// version, and a digest of what every node may read (Shared); the state's
// lineage, serial and the state file's stamp; the files expressions read,
// exactly as the plan read them; the environment variables keys read — and per node the identity of its configuration,
// its stable link, store entry and digest, the files its key hashed, the
// files its input patterns matched, how its program was found, its run
// folder's listing and the stamps (seals) under which stat alone vouches
// for its files, and what deciding it again from its recorded key lines
// takes: its upstreams, kind, resources and whether its key lines can be
// rewritten at all.
//
// What it trusts, and why:
//   - The pipeline's configuration is the one the memo was written from
//     while the header holds: every file, variable and environment value an
//     evaluation can read is in it, so the evaluated configuration of every
//     node is the one it was decided with. A node that reads an upstream's
//     values beyond its out path is decided again only by the full plan.
//   - When the pipeline's files changed, a node's configuration is the one
//     it was decided with while two digests hold (config/identity.go): the
//     header's Shared — the kiln, pool, executor, cache and moved blocks,
//     which every node may read, and the lock — and the node's Config — its
//     block's source and file (its for_each or count stands in as each.key,
//     each.value or count.index), its kind, its instance, the locals it
//     names (and those they name) by their source, the variables all of
//     them name by their values, and the addresses of its upstreams and of
//     the nodes that write its inputs in place. An evaluation reads nothing
//     else but its upstreams' values, files and the environment, which are
//     checked apart. A node that reads a sensitive variable has no Config,
//     and is decided again. Only the full plan, which loads the pipeline,
//     can use this: the answers that load no HCL need the whole header.
//   - A stamp (hash.Stamp: device, inode, size, mtime, ctime) taken outside
//     the racy window stands for a file's content: no write leaves all five
//     as they were. A stamp is never taken of a symbolic link's target, so
//     an input that is or holds a link is read again at every plan.
//   - The state file is the one the memo saw while its stamp holds; any
//     write to it, a truncation or a flipped bit, falls to the full path,
//     which checks the file's checksum.
//   - Nothing else. A missing or damaged memo, a journal (of the state, or
//     of the runs a dead apply left), a changed byte anywhere above means
//     the full plan.
//
// Check answers "is everything up to date?" from the memo alone. Replan
// makes the plan after an edit that left the configuration as it was: the
// same per-node check finds the nodes whose inputs changed; those and their
// dependents are decided by the Decider of engine/plan (plan.DecideRecorded)
// from their recorded key lines restamped for the new digests
// (plan.Restamp, once the lines are seen to give the recorded key), against
// the real state, its history and the store, so a key kept in the store is
// a restore there as in the full plan. The others are up to date.
// CheckThenReplan is the two from one read of the memo, as kiln plan asks.
//
// The full plan and an apply consult the memo too (Consult, as
// plan.Decider.Memo, which Decide asks first; an apply checks it before it
// starts and asks at each node's turn). A
// node the memo cannot vouch for — its kind probes the machine or verifies
// its result, always_run, sandbox = false, exports not known until it runs
// — is in it with why (Node.Full) and the digest of its value: the plan
// decides it, and every node whose inputs changed, whose result drifted or
// one of whose upstreams' values is not the one it was decided with. Every
// other node is up to date as recorded and is not evaluated: its value is
// made from its record and the exports the memo kept, and must digest to
// the recorded one. So a pipeline with a service, a toolchain or a git
// checkout evaluates only those and what their values reach, and only such
// a pipeline's no-change check and plan after an edit (which load no HCL)
// give way to the full plan. A narrowed plan (-target, -replace), an
// apply of moved blocks, KILN_DEBUG_KEY and KILN_NO_QUICK consult no memo.
//
// Every answer says why it was or was not given through Options.Say
// (KILN_DEBUG_PLAN=1, why.go), per node for the full plan's;
// KILN_PLAN_VERIFY=1 makes the command decide it again by the full plan,
// the memo not consulted, and fail on a difference (cmd/kiln/verify.go).
package memo
