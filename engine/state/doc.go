// Package state owns everything kiln keeps under a pipeline's state folder
// (normally <pipeline>/.kiln): the node records (state.json and the journal
// of an apply in progress), the exclusive apply lock, and the content store
// of output folders with the stable out/ links that point into it.
//
// Layout of the state folder dir:
//
//	dir/state.json          snapshot: {"version":4,"lineage":…,"serial":N,"sum":…,"records":[…],"history":[…]}
//	dir/state.json.backup   the snapshot before the last compaction
//	dir/state.journal       records committed by an apply not yet compacted
//	dir/lock                flock(2) target; holds the holder's pid, host, start, command
//	dir/store/<sh>/<key>-<run>/  the folder of one run of a node, sh = key[:2]
//	dir/out/<FileName>      symlink to ../store/<sh>/<key>-<run>: a node's stable output path
//	dir/tmp/                temporary links; emptied when the lock is taken
//	dir/running             the runs an apply has in progress and their process
//	                        groups (RunLog); removed when the apply ends
//
// A record's key lines are stored as their fields, one array each
// ([label, subject, value, note?]: Lines), since format 4; a snapshot of
// an earlier format, which held their text, is read as well (legacy.go).
// Records are decoded by hand where they hold what kiln writes (decode.go),
// by encoding/json otherwise.
//
// Records name their result's run folder as Record.Entry = "KEY-RUN". A node
// record points at the node's current result; History keeps, by key, the
// records of earlier results still in the store, which a revert restores.
//
// Invariants. Every run builds in a folder of its own, made fresh (one
// mkdir, in one of 256 shard folders) and never moved, renamed or reused;
// the store writes no metadata of its own. A run
// folder is a result exactly when a record names it, and a record is
// committed only after its run succeeded and was hashed, so an incomplete
// folder is never a result, and a failed or interrupted run — also one
// under the key of a good result (-replace, always_run, a repair) — never
// touches the good result. The stable link is switched to a new result by
// one rename; the result it pointed at stays until no record names it.
//
// The snapshot and its backup are written atomically (temp file
// in the same folder, fsync, rename, fsync of the folder), so a crash leaves
// either the old or the new content. What can be recomputed is written
// without fsync, so that an apply of many quick nodes is not paced by the
// disk: a stable link is made or replaced without fsync (a lost one is found
// by the next plan and linked again), and journal writes are batched to at
// most one fsync every 20 ms. Load never writes and never panics: a damaged
// snapshot is reported as a *CorruptError and left byte-for-byte as it was. A
// journal line carries its own checksum; only the last line may be torn by a
// crash and is then ignored. The journal starts with the lineage and serial of
// the snapshot it extends, so replay after a crash during compaction is
// recognised and skipped. The run journal is written without fsync (it must
// survive kiln, not the machine); the next command taking the lock stops what
// its unended runs left running and clears it, and a plan reads it
// (ReadRunLog) only when the lock's holder is dead (HolderAlive). Records of format version 1 name entries of the
// earlier store layout (dir/store/<key>); they are never taken for a result
// (ValidEntry), and kiln gc removes what that layout left.
//
// Links. kiln makes no symbolic link at the top of the state folder (its
// links live in out/, logs/ and tmp/), so one found there was planted — by
// a careless or hostile checkout, say .kiln/lock pointing at /etc/passwd —
// and Load and AcquireLock refuse it (a *nolink.Error naming the link, what
// it points at, and to remove it) before anything is written. Every file
// kiln writes in place under the state folder (the lock, the state and run
// journals, logs, metric samples, partial downloads) is opened with
// O_NOFOLLOW (engine/nolink), so a link planted meanwhile is refused too;
// a file replaced whole (the snapshot, the caches) is written to a
// temporary file made with O_CREATE|O_EXCL, which never follows a link, and
// renamed over its name, which replaces a link and leaves its target alone.
// In the folders below the top, kiln makes only new names.
//
// The state folder itself may be a symbolic link: it is the one way to keep
// a pipeline's state, store and logs on a bigger disk (kiln has no setting
// for where the state lives), common on clusters with a small home quota.
// FolderLink accepts a link to a folder that is empty (MakeDir then marks
// it with kiln's .gitignore) or already holds kiln's state, and kiln plan
// says where the link leads. A link to nothing, to a file, or to a folder
// of other files is refused (*FolderLinkError, with the target and what to
// do): kiln would fill someone else's folder with its state and replace
// files there by name.
//
// Locking. An apply holds the Lock (an OS file lock the kernel releases when
// the process dies) for as long as it uses a Writer; at most one Writer exists
// per state folder. A Writer is safe for concurrent use: Commit and Forget
// update State.Records under the Writer's mutex, so while a Writer is open
// other goroutines read records with Writer.Record, not from the map.
// Store methods are safe for concurrent use; Store.LockKey serialises runs of
// the same key within one process, across all Stores of the same folder.
package state
