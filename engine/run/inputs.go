package run

import (
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/human"
	"github.com/kilnbuild/kiln/engine/plan"
)

// inputWatch guards a run against its inputs changing under it: a result is
// never recorded under a key whose inputs were not what the run read. Before
// the run it takes a stat fingerprint of every input and checks each still
// has the digest the key was computed from; after the run, any fingerprint
// that moved (a write, even one that put the old content back) fails the
// node. A file last changed moments before the run began may change again
// without its fingerprint moving (timestamps are coarse), so its content is
// hashed again after the run as well. Inputs are fingerprinted and hashed
// with their symlinks followed, as their key lines were (an edit of the
// file a link leads to moves the print); key files as they are.
type inputWatch struct {
	root    string
	dec     *plan.Decision
	prints  []string
	racy    []bool
	pattern []string // the inputs the patterns resolved to, relative
}

// racyWindow is how recent a change must be for a fingerprint to prove
// nothing (see hash's stat cache, which uses the same bound).
const racyWindow = 2 * time.Second

// watchInputs fingerprints dec's inputs and checks them against its key.
func watchInputs(root string, dec *plan.Decision, stat *hash.StatCache) (*inputWatch, error) {
	w := &inputWatch{root: root, dec: dec}
	start := time.Now()
	for i, in := range dec.Inputs {
		p := absPath(root, in[0])
		print, newest, err := inputPrint(dec, i, p)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w (run kiln apply again)", in[0], err)
		}
		w.prints = append(w.prints, print)
		w.racy = append(w.racy, newest.After(start.Add(-racyWindow)))
	}
	for i, in := range dec.Inputs {
		dg, err := inputDigest(dec, i, absPath(root, in[0]), stat)
		if err != nil || dg != in[1] {
			return nil, fmt.Errorf("input %s changed after kiln computed the key of %s (%s → %s); run kiln apply again", in[0], dec.Node.Addr, human.Short(in[1]), human.Short(dg))
		}
	}
	for _, in := range dec.Inputs[:dec.InputCount] {
		w.pattern = append(w.pattern, in[0])
	}
	return w, nil
}

// check reports the first input that moved while the node ran.
func (w *inputWatch) check() error {
	a := w.dec.Node.Addr
	for i, in := range w.dec.Inputs {
		p := absPath(w.root, in[0])
		print, _, err := inputPrint(w.dec, i, p)
		if err != nil {
			return fmt.Errorf("input %s is gone after %s ran (%v): its result is not recorded; run kiln apply again", in[0], a, err)
		}
		if print != w.prints[i] {
			return fmt.Errorf("input %s was written while %s ran: its result is not recorded under the key of the content before (run kiln apply again once the input is settled)", in[0], a)
		}
		if w.racy[i] {
			if dg, err := inputDigest(w.dec, i, p, nil); err != nil || dg != in[1] {
				return fmt.Errorf("input %s was written while %s ran (%s → %s): its result is not recorded; run kiln apply again", in[0], a, human.Short(in[1]), human.Short(dg))
			}
		}
	}
	if pats := plan.KeyedInputs(w.dec.KindNode.State, w.dec.Config.Inputs); len(pats) > 0 && len(w.dec.Node.InputsFrom) == 0 {
		files, err := plan.ResolveInputs(w.root, pats)
		if err != nil {
			return fmt.Errorf("the inputs of %s moved while it ran: %w", a, err)
		}
		var now []string
		for _, f := range files {
			now = append(now, relPath(w.root, f))
		}
		if !slices.Equal(now, w.pattern) {
			return fmt.Errorf("the files matching the inputs of %s changed while it ran (%d before, %d now): its result is not recorded; run kiln apply again", a, len(w.pattern), len(now))
		}
	}
	return nil
}

// inputPrint is the fingerprint of dec's i-th input at p: an input (one of
// the first InputCount) with its links followed, a key file as it is.
func inputPrint(dec *plan.Decision, i int, p string) (string, time.Time, error) {
	if i < dec.InputCount {
		return hash.StatPrintFollow(p)
	}
	return hash.StatPrint(p)
}

// inputDigest is the digest of dec's i-th input at p, as its key line has it.
func inputDigest(dec *plan.Decision, i int, p string, stat *hash.StatCache) (string, error) {
	if i < dec.InputCount {
		return plan.InputDigest(p, stat)
	}
	return plan.DigestPath(p, stat)
}

func absPath(root, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(root, p)
}
