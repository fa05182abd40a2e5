// Package history records what each apply did — a run — and reads the
// records back for kiln report.
//
// Layout, under the state folder dir:
//
//	dir/runs/<ID>/run.journal               the run's events, one line each
//	dir/runs/<ID>/metrics/<FileName>.jsonl  metric samples of one node (engine/metrics)
//
// IDs count up from 1; a new run takes the highest ID present plus one, and
// Begin removes the oldest runs so that at most Keep remain. A run's
// journal has the line format of the state journal (engine/state): "<crc32c
// of the JSON, 8 hex digits> <JSON>\n". Its first entry, begin, holds the
// run's header and its nodes (address, kind, dependencies, resources,
// executor) in dependency order; then, as the apply goes, running entries
// (a node's command started) and finished entries (a node's action,
// reasons, outcome, times, attempts, bytes hashed, exit status, log and,
// for a node with metrics whose result is not this run's work alone, the
// segments that built it), and at the end an end entry. Nodes are referred to by their index in begin.
//
// Crash safety. Entries are appended with one write each and the journal is
// fsynced when the run ends; a run is a record, not state that decisions
// depend on, so it is not paced by the disk. Only the last line can be torn
// by a crash, and Load ignores it. A run without an end entry is running
// when the apply lock's holder is the process that began it (on this host,
// a process that is still alive), and interrupted otherwise. Each metric
// sample is one write to its node's file as its line is logged, so kiln
// report shows the curves of a running node as far as they go. A result's
// curves are the union of its segments' series (Run.ResultMetrics): those
// of a result interrupted and resumed, or restored later, span every run
// that worked on it, as long as those runs are kept.
//
// Locking. A Recorder is the run.Hooks of one apply and is safe for
// concurrent use; all its state is under one mutex. Readers take no lock:
// they read what has been appended so far.
package history
