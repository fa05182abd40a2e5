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
