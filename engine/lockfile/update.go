package lockfile

import (
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/state"
)

// Record takes a node's good state record into the lock: its key, digest
// and kiln version, and the pins its build resolved (kept in the record's
// attributes), which replace the node's pins.
func (f *File) Record(r *state.Record) {
	if !r.Good() {
		return
	}
	f.Nodes[r.Addr] = Node{Key: r.Key, Digest: r.Digest, Kiln: r.KilnVersion}
	f.SetPins(r.Addr, plan.RecordedPins(r.Attrs))
}

// RecordVarying takes a good record of a node whose result varies by
// nature (deterministic = false) into the lock: its key, which the
// pipeline decides, and its pins; not its digest, which every run changes.
func (f *File) RecordVarying(r *state.Record) {
	if !r.Good() {
		return
	}
	f.Record(r)
	n := f.Nodes[r.Addr]
	n.Digest = ""
	f.Nodes[r.Addr] = n
}

// RecordPinsOnly takes a good record's pins into the lock but no node
// entry: the key of a node downstream of one whose result varies changes
// with every run of that upstream, not with the pipeline.
func (f *File) RecordPinsOnly(r *state.Record) {
	if !r.Good() {
		return
	}
	f.Record(r)
	delete(f.Nodes, r.Addr)
}
