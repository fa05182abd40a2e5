package memo

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/par"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/state"
)

// checked is what the check of one node found: why it cannot be checked
// without the full plan ("" when it can), the input and key files whose
// digest changed (path → new digest), and whether its result no longer
// has its recorded digest.
type checked struct {
	full    string
	changed map[string]string
	drift   bool
}

// upToDate reports whether the check found the node as recorded, or else
// why not.
func (c checked) upToDate(root string) (string, bool) {
	switch {
	case c.full != "":
		return c.full, false
	case c.drift:
		return "its result changed outside kiln", false
	}
	for p := range c.changed {
		return "input " + relToRoot(root, p) + " changed", false
	}
	return "", true
}

// checkAll checks every node in parallel (check). linksTrusted: the links
// folder's stamp is the memo's (see Memo.Links). stopAtMiss: the first
// node not up to date as recorded ends the check (the no-change check,
// which needs no more); false when it did.
func (s *session) checkAll(linksTrusted, stopAtMiss bool) ([]checked, bool) {
	nodes := s.memo.Nodes
	if r, ok := hash.OpenRoot(s.store.Root()); ok {
		s.storeRoot = r
		defer func() { s.storeRoot = nil; r.Close() }()
	}
	s.reseal = make([]bool, len(nodes))
	out := make([]checked, len(nodes))
	var missed atomic.Bool
	par.Each(len(nodes), max(4, runtime.GOMAXPROCS(0)), func(i int) {
		if stopAtMiss && missed.Load() {
			return
		}
		out[i] = s.check(i, linksTrusted)
		if why, ok := out[i].upToDate(s.root); !ok && stopAtMiss && !missed.Swap(true) {
			s.why.miss("%s: %s", nodes[i].Addr, why)
		}
	})
	return out, !missed.Load()
}

// check re-checks node i: its stable link (unless the links folder's stamp
// vouches for it), programs and glob matches must hold, or it cannot be
// checked without the full plan; its inputs are hashed again, through
// their seals where these hold, and its result through its seal or by
// digest.
func (s *session) check(i int, linksTrusted bool) checked {
	n := &s.memo.Nodes[i]
	if n.Full != "" {
		return checked{full: n.Full}
	}
	// A seal that does not hold, or one that may be made now (a regular
	// input or a listed run folder without one), is made again by settle
	// once the check has held; a node that can never be sealed (a folder
	// input, a run folder with a subfolder, outputs outside it) is not
	// flagged, so that settle does not run for it on every check.
	reseal := func() {
		s.reseal[i] = true
		s.unsealed.Store(true)
	}
	var c checked
	if !linksTrusted {
		if key, ok := s.store.Linked(n.Link); !ok || key != n.Entry {
			return checked{full: "its stable link does not lead to its result"}
		}
	}
	if why := s.programsHold(n); why != "" {
		return checked{full: why}
	}
	if why := s.globsHold(n); why != "" {
		return checked{full: why}
	}
	for j, in := range n.Inputs {
		if j < len(n.InputSeals) && n.InputSeals[j] != (hash.Stamp{}) {
			if hash.FileHolds(in.Path, n.InputSeals[j]) {
				continue // its digest is the recorded one
			}
			reseal()
		}
		d, err := n.digest(j, s.statCache())
		if err != nil {
			return checked{full: fmt.Sprintf("input %s: %v", relToRoot(s.root, in.Path), err)}
		}
		if d != in.Digest {
			if c.changed == nil {
				c.changed = map[string]string{}
			}
			c.changed[in.Path] = d
			continue
		}
		if fi, err := os.Lstat(in.Path); err == nil && fi.Mode().IsRegular() {
			reseal() // a regular file without a seal: one may be made now
		}
	}
	if n.Sealed {
		if s.sealHolds(n) {
			return c
		}
		reseal()
	} else if n.Listing != nil && len(n.Outputs) == 0 {
		reseal() // listed, no outputs outside: one may be made now
	}
	dir := s.store.RunPath(n.Entry)
	if dir == "" {
		return checked{full: "its result is not in the store"}
	}
	// One worker: the nodes are checked in parallel already.
	got, _, err := plan.DirDigestWith(dir, s.root, n.Outputs, s.statCache(), hash.TreeOptions{Listing: n.Listing, Workers: 1})
	c.drift = err != nil || got != n.Digest
	return c
}

// sealHolds reports whether n's run folder still has its seal, with a path
// relative to the store folder when it is held open.
func (s *session) sealHolds(n *Node) bool {
	shard, ok := state.RunShard(n.Entry)
	if !ok {
		return false
	}
	if s.storeRoot != nil {
		return hash.SealHoldsAt(s.storeRoot, n.Listing, n.Seal, shard, n.Entry)
	}
	return hash.SealHolds(s.store.RunPath(n.Entry), n.Listing, n.Seal)
}

// programsHold is why n's programs are not found again as they were; ""
// when they are.
func (s *session) programsHold(n *Node) string {
	for _, pr := range n.Programs {
		found, err := plan.ResolveProgram(s.root, s.stateDir, pr.Name, pr.Dir, []string{"PATH=" + pr.Path}, s.statCache())
		if err != nil || found.Line().Text() != pr.Line {
			return fmt.Sprintf("its program %s is found elsewhere or changed", pr.Name)
		}
	}
	return ""
}

// globsHold is why n's input patterns do not match the files they did; ""
// when they do.
func (s *session) globsHold(n *Node) string {
	for _, g := range n.Globs {
		got, err := plan.ResolveInputs(s.root, []string{g.Pattern})
		if err != nil || !slices.Equal(got, g.Matches) {
			return fmt.Sprintf("the files input %q matches changed", g.Pattern)
		}
	}
	return ""
}

// digest hashes the j-th of n's inputs as the key did: an input with its
// links followed, a key file as it is.
func (n *Node) digest(j int, stat *hash.StatCache) (string, error) {
	if j >= len(n.Inputs)-n.KeyFiles {
		return digestAny(n.Inputs[j].Path, stat)
	}
	return plan.InputDigest(n.Inputs[j].Path, stat)
}

func digestAny(p string, stat *hash.StatCache) (string, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return "", err
	}
	var d hash.Digest
	if fi.Mode().IsRegular() {
		d, err = hash.File(p, stat)
	} else {
		d, err = hash.Tree(p, stat)
	}
	return d.String(), err
}

// parallel calls f(0) ... f(n-1) on a few goroutines and reports whether
// every call returned true; after a false, the calls left return at once.
func parallel(n int, f func(i int) bool) bool {
	var failed atomic.Bool
	par.Each(n, max(4, runtime.GOMAXPROCS(0)), func(i int) {
		if !failed.Load() && !f(i) {
			failed.Store(true)
		}
	})
	return !failed.Load()
}

// relToRoot is p relative to the pipeline folder root, when it is inside.
func relToRoot(root, p string) string {
	if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return p
}
