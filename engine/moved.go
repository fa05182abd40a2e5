package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/run"
	"github.com/kilnbuild/kiln/engine/state"
)

// Moved blocks hand what kiln recorded of one node address to another: its
// state record (key, digest, timings, log), its stable output link, its log
// files and its kiln.lock.hcl entries. Keys do not change, so the node at
// the new address is up to date and nothing rebuilds. Plan shows the moves
// and decides against the moved records; apply makes them, under the apply
// lock, before any node runs. A moved block with nothing recorded under its
// from does nothing, as in Terraform: whether from has already moved (only
// to holds records) or was never built here (a fresh checkout, with no
// .kiln), so the block can stay in the pipeline.

// findMoves lists the records the pipeline's moved blocks move. A move
// whose from and to both hold state records is an error.
func (w *Workspace) findMoves() ([]plan.Moved, hcl.Diagnostics) {
	var moves []plan.Moved
	var diags hcl.Diagnostics
	for _, m := range w.pipeline.Moved {
		found := w.recordedUnder(m, m.From)
		if len(found) == 0 {
			continue // nothing to move
		}
		for _, from := range found {
			to := m.To
			if !m.From.Key.Set {
				to.Key = from.Key // a whole block moves instance by instance
			}
			if w.state.Records[to.String()] != nil {
				diags = append(diags, movedError(m, fmt.Sprintf("%s already has a record in the state, so the records of %s cannot move there. Forget one of them first (kiln destroy %s), or remove the moved block.", to, from, to)))
				continue
			}
			moves = append(moves, plan.Moved{From: from.String(), To: to.String()})
		}
	}
	return moves, diags
}

// recordedUnder lists the addresses matching a (a block matches its
// instances) with a state record or a lock entry.
func (w *Workspace) recordedUnder(m *config.Moved, a addr.Node) []addr.Node {
	seen := map[addr.Node]bool{}
	match := func(s string) {
		n, err := addr.Parse(s)
		if err == nil && (n == a || !a.Key.Set && n.Block() == a) {
			seen[n] = true
		}
	}
	for s := range w.state.Records {
		match(s)
	}
	for s := range w.lock.Nodes {
		match(s)
	}
	for s := range w.lock.Pins {
		match(s)
	}
	out := make([]addr.Node, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Less(out[j]) })
	return out
}

func movedError(m *config.Moved, detail string) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot move " + m.From.String() + " to " + m.To.String(), Detail: detail, Subject: m.DeclRange.Ptr()}
}

// moveInMemory applies moves to the loaded state and lock, for a plan.
func (w *Workspace) moveInMemory(moves []plan.Moved) {
	for _, m := range moves {
		if r := w.state.Records[m.From]; r != nil {
			c := *r
			c.Addr = m.To
			w.state.Records[m.To] = &c
			delete(w.state.Records, m.From)
		}
		w.moveLockEntry(m)
	}
}

func (w *Workspace) moveLockEntry(m plan.Moved) {
	if n, ok := w.lock.Nodes[m.From]; ok {
		w.lock.Nodes[m.To] = n
		delete(w.lock.Nodes, m.From)
	}
	if p, ok := w.lock.Pins[m.From]; ok {
		w.lock.Pins[m.To] = p
		delete(w.lock.Pins, m.From)
	}
}

// moveRecorded makes the moves for real: the records through the state
// writer, the stable link and the log files on disk, the lock in memory
// (recordLock writes it when the apply ends).
func (w *Workspace) moveRecorded(writer *state.Writer, moves []plan.Moved) error {
	for _, m := range moves {
		from, _ := addr.Parse(m.From)
		to, _ := addr.Parse(m.To)
		if r := w.state.Records[m.From]; r != nil {
			c := *r
			c.Addr = m.To
			if c.Log != "" {
				c.Log = moveLog(w.pipeline, c.Log, from, to)
			}
			if err := writer.Commit(&c); err != nil {
				return err
			}
			if err := writer.Forget(m.From); err != nil {
				return err
			}
			if entry, ok := w.store.Linked(from.FileName()); ok {
				if err := w.store.Link(to.FileName(), entry); err != nil {
					return fmt.Errorf("moving %s to %s: %w", m.From, m.To, err)
				}
				_ = w.store.Unlink(from.FileName())
			}
		}
		w.moveLockEntry(m)
	}
	return nil
}

// moveLog moves the run logs of from to those of to, and returns the
// record's log path after the move.
func moveLog(p *config.Pipeline, recorded string, from, to addr.Node) string {
	oldDir, newDir := run.LogDir(p.StateDir, from), run.LogDir(p.StateDir, to)
	_ = os.Rename(oldDir, newDir)
	_ = os.Rename(run.LogPath(p.StateDir, from)+".1", run.LogPath(p.StateDir, to)+".1")
	_ = os.Remove(run.LogPath(p.StateDir, from))
	abs := absTo(p.Root, recorded)
	if rest, ok := strings.CutPrefix(abs, oldDir+string(filepath.Separator)); ok {
		abs = filepath.Join(newDir, rest)
		run.LinkLatest(p.StateDir, to, abs)
		return relTo(p.Root, abs)
	}
	return recorded
}

func absTo(root, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(root, p)
}

func relTo(root, p string) string {
	if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return p
}

// movedFrom maps each move's new address to its old one.
func movedFrom(moves []plan.Moved) map[addr.Node]addr.Node {
	out := map[addr.Node]addr.Node{}
	for _, m := range moves {
		from, err1 := addr.Parse(m.From)
		to, err2 := addr.Parse(m.To)
		if err1 == nil && err2 == nil {
			out[to] = from
		}
	}
	return out
}
