package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/run"
	"github.com/kilnbuild/kiln/engine/state"
)

// GCOptions tune a garbage collection.
type GCOptions struct {
	DryRun    bool
	OlderThan time.Duration
	// Keep are result keys to keep with why (CommitKeys: the locks of
	// recent commits and named refs).
	Keep map[string]string
	// Budget, when positive, bounds the store in bytes: earlier results
	// are kept newest first, those Keep names before others, while the
	// store stays within it (results in use are always kept).
	Budget int64
	// Kinds are asked for the files of their own they keep in the state
	// folder (kind.Collector): a fetch's partial downloads.
	Kinds []kind.Kind
}

// GCEntry is one run folder gc removed (or would remove), or a kind's
// leftover (no Key; Entry its path in the state folder).
type GCEntry struct {
	Key   string
	Entry string // KEY-RUN; for a path outside the store's layout, that path
	Addr  string // the node that made it, or why it is garbage
	Size  int64
}

// GCReport says what gc did.
type GCReport struct {
	Removed []GCEntry
	Freed   int64
	Kept    int
	// KeptEntries says why each result was kept.
	KeptEntries []GCKept
	// Links are the stable links removed (or that would be) because their
	// run folder is gone or was removed (a forgotten node's link, after gc).
	Links []string
	// With a budget: the budget, the bytes the results in use take, and
	// those of every result kept (in use and earlier ones).
	Budget, InUse, Stored int64
}

// GCKept is a result gc kept, and why.
type GCKept struct {
	Key   string
	Entry string
	Addr  string
	Why   string // "in use by ADDR", "kept to resume", or "too young: created ... ago"
}

// GC removes run folders that no node's record points at: earlier results
// kept for a revert (History), older than o.OlderThan, unless o.Keep names
// them or o.Budget has room for them (keepHistory); failed, interrupted and
// superseded runs; and anything left from an earlier store layout. A folder a
// resumable node may resume in is kept. Then each kind that keeps files of
// its own in the state folder removes what no build needs (kind.Collector:
// a fetch's refused and stale partial downloads). It holds the apply lock
// meanwhile, so no apply is using any of it.
func GC(dir string, o GCOptions) (*GCReport, error) {
	host, _ := os.Hostname()
	lock, err := state.AcquireLock(dir, state.Holder{PID: os.Getpid(), Host: host, Started: time.Now().UTC(), Command: "kiln gc"})
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	s, err := state.Load(dir)
	if err != nil {
		return nil, err
	}
	store := state.OpenStore(dir)
	var w *state.Writer
	if !o.DryRun {
		if w, err = state.OpenWriter(dir, s); err != nil {
			return nil, err
		}
		// Runs an apply that died left are settled first: their processes
		// stopped, and a resumable node's folder recorded, not collected.
		if _, _, err := settle(dir, store, w); err != nil {
			return nil, errors.Join(err, w.Close())
		}
	}
	rep, err := collect(s, store, w, o)
	if w != nil {
		if cerr := w.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("saving state: %w", cerr)
		}
	}
	if err == nil {
		err = gcLinks(dir, store, rep, o.DryRun)
	}
	if err == nil {
		err = gcKinds(dir, rep, o)
	}
	if err != nil {
		return rep, err
	}
	if !o.DryRun {
		cachePath := filepath.Join(dir, "cache", "stat")
		c := hash.LoadStatCache(cachePath)
		c.Prune(func(p string) bool { _, err := os.Lstat(p); return err == nil })
		_ = c.Save(cachePath)
	}
	return rep, nil
}

// collect removes what GC removes; w is nil for a dry run. s must not change
// meanwhile other than through w.
func collect(s *state.State, store *state.Store, w *state.Writer, o GCOptions) (*GCReport, error) {
	inUse := map[string]bool{}
	why := map[string]GCKept{}
	for _, r := range s.Sorted() {
		if r.Entry != "" && !inUse[r.Entry] {
			inUse[r.Entry] = true
			key, _, _ := state.ParseEntry(r.Entry)
			why[r.Entry] = GCKept{Key: key, Entry: r.Entry, Addr: r.Addr, Why: "in use by " + r.Addr}
		}
		if f := r.Failure; f != nil && f.Entry != "" && !inUse[f.Entry] {
			inUse[f.Entry] = true // a resumable node may continue there
			why[f.Entry] = GCKept{Key: f.Key, Entry: f.Entry, Addr: r.Addr, Why: "kept for " + r.Addr + " to resume in"}
		}
	}
	// A Slurm job an apply left running writes into its run folder, and the
	// next apply adopts it.
	if jobs, err := run.SlurmJournal(filepath.Dir(store.Root())).List(); err == nil {
		for _, j := range jobs {
			if j.Entry != "" && !inUse[j.Entry] {
				inUse[j.Entry] = true
				why[j.Entry] = GCKept{Key: j.Key, Entry: j.Entry, Addr: j.Addr, Why: "Slurm job " + j.ID + " of " + j.Addr + " writes there"}
			}
		}
	}
	rep := &GCReport{}
	remove := func(e GCEntry, path string, rm func() error) error {
		e.Size = duSize(path)
		rep.Removed = append(rep.Removed, e)
		rep.Freed += e.Size
		if w == nil {
			return nil
		}
		return rm()
	}
	young := map[string]bool{} // earlier results kept
	history := s.SortedHistory()
	o.Keep = keepBelow(history, o.Keep, currentDigests(s))
	keptHistory := keepHistory(history, inUse, store, o, rep)
	for _, h := range history {
		k, ok := keptHistory[h.Entry]
		switch {
		case inUse[h.Entry]:
		case ok:
			young[h.Entry] = true
			why[h.Entry] = k
		default:
			err := remove(GCEntry{Key: h.Key, Entry: h.Entry, Addr: h.Addr}, store.RunPath(h.Entry), func() error {
				if err := store.RemoveRun(h.Entry); err != nil {
					return err
				}
				return w.Drop(h.Key)
			})
			if err != nil {
				return rep, err
			}
			inUse[h.Entry] = true // reported
		}
	}
	runs, err := store.Runs()
	if err != nil {
		return rep, err
	}
	for _, e := range runs {
		if k, ok := why[e]; ok && (young[e] || inUse[e] && s.Referenced(e)) {
			rep.Kept++
			rep.KeptEntries = append(rep.KeptEntries, k)
			continue
		}
		if inUse[e] {
			continue // reported above
		}
		key, _, _ := state.ParseEntry(e)
		err := remove(GCEntry{Key: key, Entry: e, Addr: "(unused run)"}, store.RunPath(e), func() error { return store.RemoveRun(e) })
		if err != nil {
			return rep, err
		}
	}
	strays, err := store.Strays()
	if err != nil {
		return rep, err
	}
	for _, name := range strays {
		err := remove(GCEntry{Key: name, Entry: name, Addr: "(earlier store layout)"}, filepath.Join(store.Root(), name), func() error { return store.RemoveStray(name) })
		if err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// gcKinds asks each kind that keeps files in the state folder to collect
// them, and reports what it removed and kept.
func gcKinds(dir string, rep *GCReport, o GCOptions) error {
	co := kind.CollectOptions{DryRun: o.DryRun, OlderThan: o.OlderThan, Now: time.Now()}
	for _, k := range o.Kinds {
		c, ok := k.(kind.Collector)
		if !ok {
			continue
		}
		left, err := c.Collect(dir, co)
		for _, l := range left {
			if l.Kept {
				rep.KeptEntries = append(rep.KeptEntries, GCKept{Entry: l.Path, Addr: k.Name(), Why: l.Why})
				continue
			}
			rep.Removed = append(rep.Removed, GCEntry{Entry: l.Path, Addr: l.Why, Size: l.Size})
			rep.Freed += l.Size
		}
		if err != nil {
			return fmt.Errorf("%s: %w", k.Name(), err)
		}
	}
	return nil
}

func duSize(root string) int64 {
	var n int64
	_ = filepath.WalkDir(root, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// gcLinks removes the stable links left dangling: their run folder is gone,
// goes in this collection (a forgotten node keeps its link until then), or
// is of an earlier store layout.
func gcLinks(dir string, store *state.Store, rep *GCReport, dryRun bool) error {
	removed := map[string]bool{}
	for _, e := range rep.Removed {
		removed[e.Entry] = true
	}
	names, err := os.ReadDir(filepath.Join(dir, "out"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range names {
		if e.Type()&fs.ModeSymlink == 0 {
			continue // not a link kiln made
		}
		name := e.Name()
		if entry, linked := store.Linked(name); linked && store.Exists(entry) && !removed[entry] {
			continue
		}
		rep.Links = append(rep.Links, filepath.Join(filepath.Base(dir), "out", name))
		if !dryRun {
			if err := store.Unlink(name); err != nil {
				return err
			}
		}
	}
	return nil
}
