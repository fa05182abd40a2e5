package run

import (
	"testing"

	"github.com/kilnbuild/kiln/engine/addr"
)

type noteHooks struct {
	NoHooks
	notes, statuses []string
	bytes           int64
}

func (h *noteHooks) Note(a addr.Node, msg string)         { h.notes = append(h.notes, msg) }
func (h *noteHooks) Status(a addr.Node, s string)         { h.statuses = append(h.statuses, s) }
func (h *noteHooks) Bytes(addr string, done, total int64) { h.bytes = done }

// A Tee passes the optional hooks on to the members that have them, so a
// recorder beside the terminal's view does not hide notes and job states.
func TestTeePassesOptionalHooks(t *testing.T) {
	h := &noteHooks{}
	var tee Hooks = Tee{NoHooks{}, h}
	a := addr.Node{Kind: "exec", Name: "a"}
	tee.(Notes).Note(a, "remote cache unreachable")
	tee.(Statuses).Status(a, "Slurm job 1 RUNNING on vm")
	tee.(ByteCounter).Bytes("exec.a", 10, 20)
	if len(h.notes) != 1 || len(h.statuses) != 1 || h.bytes != 10 {
		t.Errorf("notes %q, statuses %q, bytes %d: want each passed on once", h.notes, h.statuses, h.bytes)
	}
}
