package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/plan"
)

// CheckStatus is what a check found for one node.
type CheckStatus string

const (
	Reproduced       CheckStatus = "reproduced"
	Mismatch         CheckStatus = "MISMATCH"
	NotDeterministic CheckStatus = "not deterministic" // differs, but deterministic = false
	CheckSkipped     CheckStatus = "skipped"
	CheckFailed      CheckStatus = "failed" // the rebuild itself failed
)

// CheckResult is one node's part of a check.
type CheckResult struct {
	Addr    addr.Node
	Status  CheckStatus
	Against string   // where Want comes from: "kiln.lock.hcl" or "state"
	Want    string   // the recorded digest
	Got     string   // the rebuilt digest
	Files   []string // files that differ, when the engine hashed the output
	Reason  string   // why a node was skipped
	// InScratch is set when the node had never been built here and was
	// built, with what it needs, in a scratch state folder.
	InScratch bool
	Err       error // why a rebuild failed
	LogTail   []string
}

// Checked is the recorded build a check compares against.
type Checked struct{ Key, Digest string }

// CheckOptions say what to check.
type CheckOptions struct {
	Named  map[addr.Node]bool // nodes named by the user; empty: every built node
	Locked map[string]Checked // the lock file's node entries, by address
	Dir    string             // scratch folder, removed afterwards
}

// Check rebuilds nodes of the plan pl, in its order, each into a scratch
// folder under o.Dir, with the current upstream outputs, and compares the
// digest with the lock's (when it records the same key) or the state's. It
// writes nothing to the store, the state or the lock. A node with
// deterministic = false is rebuilt only when named, and a difference is
// reported, not failed. Services, nodes with in-place outputs and nodes that
// are not up to date are skipped with the reason.
func (a *Applier) Check(ctx context.Context, pl *plan.Plan, o CheckOptions) []CheckResult {
	d := a.Decider
	a.vals = plan.NewValues()
	for _, dec := range pl.Changes {
		a.vals.Set(dec.Node.Addr, d.ValueAfter(dec))
	}
	defer os.RemoveAll(o.Dir)
	var out []CheckResult
	for _, dec := range pl.Changes {
		n := dec.Node
		if len(o.Named) > 0 && !o.Named[n.Addr] && !o.Named[n.Addr.Block()] {
			continue
		}
		r := CheckResult{Addr: n.Addr}
		if r.Reason = skipReason(dec, len(o.Named) > 0); r.Reason != "" {
			r.Status = CheckSkipped
			out = append(out, r)
			continue
		}
		rec := dec.Record
		r.Against, r.Want = "state", rec.Digest
		if l, ok := o.Locked[n.Addr.String()]; ok && l.Key == rec.Key {
			r.Against, r.Want = "kiln.lock.hcl", l.Digest
		}
		a.checkNode(ctx, dec, o.Dir, &r)
		out = append(out, r)
	}
	return out
}

// skipReason says why a node cannot be checked, or "".
func skipReason(dec *plan.Decision, named bool) string {
	switch {
	case !dec.Record.Good():
		return "never built"
	case kind.IsService(dec.Kind):
		return "a service is a running process, not a build"
	case len(dec.Record.Outputs) > 0:
		return "it writes in-place outputs, which a rebuild would overwrite"
	case dec.Action != plan.NoOp:
		return fmt.Sprintf("not up to date (the plan says %s): run kiln apply first", dec.Action.Word())
	case !dec.Node.Meta.Deterministic && !named:
		return "deterministic = false (name it to rebuild it anyway)"
	}
	return ""
}

// checkNode rebuilds one node into a scratch folder and compares digests.
func (a *Applier) checkNode(ctx context.Context, dec *plan.Decision, root string, r *CheckResult) {
	fail := func(err error) { r.Status, r.Err = CheckFailed, err }
	if err := os.MkdirAll(root, 0o755); err != nil {
		fail(err)
		return
	}
	dir, err := os.MkdirTemp(root, dec.Node.Addr.FileName()+"-")
	if err != nil {
		fail(err)
		return
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		fail(err)
		return
	}
	log := openLog(filepath.Join(dir, "log"), func(string) {})
	b, _, err := a.runKind(ctx, dec, "", out, false, log, nil, nil)
	_ = log.Close()
	if err != nil {
		fail(err)
		r.LogTail = log.Tail()
		return
	}
	var kindDigest string
	if b.result != nil {
		kindDigest = b.result.Digest
	}
	switch {
	case kindDigest != "":
		r.Got = kindDigest
	case b.remote != nil:
		r.Got = b.remote.Digest // hashed by the Slurm job where it ran
	default:
		got, err := hash.Tree(out, nil)
		if err != nil {
			fail(fmt.Errorf("hashing the rebuilt result: %w", err))
			return
		}
		r.Got = got.String()
	}
	if r.Got == r.Want {
		r.Status = Reproduced
		return
	}
	r.Status = Mismatch
	if !dec.Node.Meta.Deterministic {
		r.Status = NotDeterministic
	}
	if kindDigest == "" {
		r.Files = diffFiles(a.Decider.Store.RunPath(dec.Record.Entry), out)
	}
}

// diffFiles names the files that differ between a stored result and its
// rebuild; nil when a side cannot be read.
func diffFiles(stored, rebuilt string) []string {
	want, err := hash.Manifest(stored, nil)
	if err != nil {
		return nil
	}
	got, err := hash.Manifest(rebuilt, nil)
	if err != nil {
		return nil
	}
	return hash.DiffManifests(want, got)
}
