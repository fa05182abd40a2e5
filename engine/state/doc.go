// Package state owns everything kiln keeps under a pipeline's state folder
// (normally <pipeline>/.kiln): the node records (state.json and the journal
// of an apply in progress), the exclusive apply lock, and the content store
// of output folders with the stable out/ links that point into it.
//
// Layout of the state folder dir:
//
//	dir/state.json         snapshot: {"version":1,"lineage":…,"serial":N,"records":[…]}
//	dir/state.json.backup  the snapshot before the last compaction
//	dir/state.journal      records committed by an apply not yet compacted
//	dir/lock               flock(2) target; holds the holder's pid, host, start, command
//	dir/store/<key>/       output folder of one run, named by the node key
//	dir/store/<key>.json   entry metadata and the full record of the run; present
//	                       only once the run succeeded
//	dir/out/<FileName>     symlink to ../store/<key>: a node's stable output path
//
// Invariants. The snapshot and its backup are written atomically (temp file
// in the same folder, fsync, rename, fsync of the folder), so a crash leaves
// either the old or the new content. What can be recomputed is written
// without fsync, so that an apply of many quick nodes is not paced by the
// disk: store metadata is written in place (a torn file is invalid JSON and
// reads as an incomplete entry), a stable link is replaced by rename (a lost
// one is found by the next plan and linked again), and journal writes are
// batched to at most one fsync every 20 ms. Load never writes and never panics: a damaged
// snapshot is reported as a *CorruptError and left byte-for-byte as it was. A
// journal line carries its own checksum; only the last line may be torn by a
// crash and is then ignored. The journal starts with the lineage and serial of
// the snapshot it extends, so replay after a crash during compaction is
// recognised and skipped. A store entry is complete exactly when its metadata
// file is present and valid; an incomplete folder is never a result, and
// Remove deletes the metadata before the folder.
//
// Locking. An apply holds the Lock (an OS file lock the kernel releases when
// the process dies) for as long as it uses a Writer; at most one Writer exists
// per state folder. A Writer is safe for concurrent use: Commit and Forget
// update State.Records under the Writer's mutex, so while a Writer is open
// other goroutines read records with Writer.Record, not from the map.
// Store methods are safe for concurrent use; Store.LockKey serialises runs of
// the same key within one process, across all Stores of the same folder.
package state
