package memo

import (
	"os"
	"slices"
	"sync/atomic"
	"time"

	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/state"
)

// settle records in the memo what a check that held has just read and
// that stat alone can now vouch for: the links folder's stamp, taken at
// start before any link was read (so the links are trusted from the next
// check on), and for each node whose seal is missing or no longer holds,
// its run folder's listing (a folder changed too recently when the memo
// was written had none) and the seals of that folder and of its input
// files (see seal). An apply writes its memo right after making its last
// links, when the links folder is still racy, so the first check after it
// settles them. Nothing is written when the stamp is racy or changed
// meanwhile, or when the memo or the state is no longer the one checked.
func (s *session) settle(links hash.Stamp, start time.Time, all bool) {
	if links.Racy(start) {
		return
	}
	if after, ok := hash.StampOf(s.store.LinksDir()); !ok || after != links {
		return
	}
	changed := s.memo.Links == nil || *s.memo.Links != links
	s.memo.Links = &links
	var sources []Source
	for _, path := range s.sources {
		if st, d, ok := hash.SealFile(path, s.statCache()); ok {
			sources = append(sources, Source{Path: path, Digest: d, Stamp: st})
		}
	}
	if !slices.Equal(sources, s.memo.Sources) {
		s.memo.Sources, changed = sources, true
	}
	var nodesChanged atomic.Bool
	parallel(len(s.memo.Nodes), func(i int) bool {
		if (all || s.reseal[i]) && s.seal(&s.memo.Nodes[i]) {
			nodesChanged.Store(true)
		}
		return true
	})
	if !changed && !nodesChanged.Load() {
		return // nothing new to trust: the memo is not rewritten
	}
	data, ok := encode(s.memo)
	if !ok {
		return
	}
	path := Path(s.stateDir)
	now, err := os.Stat(path)
	if err != nil || !os.SameFile(now, s.info) || !now.ModTime().Equal(s.info.ModTime()) || now.Size() != s.info.Size() {
		return // rewritten since it was read
	}
	if lineage, serial, ok := state.ReadStamp(s.stateDir); !ok || lineage != s.memo.Lineage || serial != s.memo.Serial || state.HasRunLog(s.stateDir) {
		return
	}
	_ = state.ReplaceFile(path, data, 0o644)
}

// seal gives n the listing of its run folder, the seal of that folder and
// of its input files, where it has none and the folder and the stat cache
// vouch for them now, and reports whether any of them changed.
func (s *session) seal(n *Node) (changed bool) {
	before := *n
	beforeInputs := slices.Clone(n.InputSeals)
	defer func() {
		changed = n.Sealed != before.Sealed || n.Listing != before.Listing || !slices.Equal(n.Seal, before.Seal) || !slices.Equal(n.InputSeals, beforeInputs)
	}()
	dir := s.store.RunPath(n.Entry)
	sealTree := func() {
		if n.Listing != nil && len(n.Outputs) == 0 {
			seal, d, ok := hash.SealTree(dir, n.Listing, s.statCache())
			if ok && d.String() == n.Digest {
				n.Sealed, n.Seal = true, seal
			}
		}
	}
	if dir != "" && !(n.Sealed && hash.SealHolds(dir, n.Listing, n.Seal)) {
		n.Sealed, n.Seal = false, nil
		sealTree() // with the listing the memo has, if it still vouches
		// A listing stands only for itself (the folder's stamp is in it),
		// so a fresh one may replace one that no longer vouches.
		if !n.Sealed {
			if l, ok := hash.ListFolder(dir); ok {
				n.Listing = l
				sealTree()
			}
		}
	}
	if len(n.InputSeals) != len(n.Inputs) {
		n.InputSeals = make([]hash.Stamp, len(n.Inputs))
	}
	for i, in := range n.Inputs {
		if n.InputSeals[i] != (hash.Stamp{}) && hash.FileHolds(in.Path, n.InputSeals[i]) {
			continue
		}
		st, d, ok := hash.SealFile(in.Path, s.statCache())
		if !ok || d.String() != in.Digest {
			st = hash.Stamp{}
		}
		n.InputSeals[i] = st
	}
	return
}
