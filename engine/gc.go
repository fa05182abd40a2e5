package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/state"
)

// GCOptions tune a garbage collection.
type GCOptions struct {
	DryRun    bool
	OlderThan time.Duration
}

// GCEntry is one store entry gc removed (or would remove).
type GCEntry struct {
	Key  string
	Addr string
	Size int64
}

// GCReport says what gc did.
type GCReport struct {
	Removed []GCEntry
	Freed   int64
	Kept    int
	// KeptEntries says why each complete entry was kept.
	KeptEntries []GCKept
	// Links are the stable links removed (or that would be) because their
	// entry is gone or was removed (a forgotten node's link, after gc).
	Links []string
}

// GCKept is an entry gc kept, and why.
type GCKept struct {
	Key  string
	Addr string
	Why  string // "in use by ADDR", or "too young: created ... ago"
}

// GC removes store entries that no recorded node points at, and incomplete
// folders no resumable node can resume. It holds the apply lock meanwhile.
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
	inUse := map[string]bool{}
	user := map[string]string{}
	for _, r := range s.Sorted() {
		if r.Entry != "" {
			inUse[r.Entry] = true
			if user[r.Entry] == "" {
				user[r.Entry] = r.Addr
			}
		}
		if r.Failure != nil && r.Failure.Key != "" {
			inUse[r.Failure.Key] = true // a resumable run may continue there
		}
	}
	store := state.OpenStore(dir)
	rep := &GCReport{}
	entries, err := store.Entries()
	if err != nil {
		return nil, err
	}
	cutoff := time.Now().Add(-o.OlderThan)
	remove := func(key, addr string) error {
		size := duSize(store.EntryPath(key))
		rep.Removed = append(rep.Removed, GCEntry{Key: key, Addr: addr, Size: size})
		rep.Freed += size
		if o.DryRun {
			return nil
		}
		return store.Remove(key)
	}
	for _, e := range entries {
		switch {
		case inUse[e.Key]:
			rep.Kept++
			rep.KeptEntries = append(rep.KeptEntries, GCKept{Key: e.Key, Addr: e.Addr, Why: "in use by " + user[e.Key]})
			continue
		case o.OlderThan > 0 && e.Created.After(cutoff):
			rep.Kept++
			rep.KeptEntries = append(rep.KeptEntries, GCKept{Key: e.Key, Addr: e.Addr,
				Why: fmt.Sprintf("too young: created %s ago, -older-than %s", time.Since(e.Created).Round(time.Second), o.OlderThan)})
			continue
		}
		if err := remove(e.Key, e.Addr); err != nil {
			return rep, err
		}
	}
	incomplete, err := store.Incomplete()
	if err != nil {
		return rep, err
	}
	for _, key := range incomplete {
		if inUse[key] {
			continue
		}
		if err := remove(key, "(incomplete)"); err != nil {
			return rep, err
		}
	}
	if err := gcLinks(dir, store, rep, o.DryRun); err != nil {
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

// gcLinks removes the stable links left dangling: their entry is gone, or
// goes in this collection (a forgotten node keeps its link until then).
func gcLinks(dir string, store *state.Store, rep *GCReport, dryRun bool) error {
	removed := map[string]bool{}
	for _, e := range rep.Removed {
		removed[e.Key] = true
	}
	names, err := os.ReadDir(filepath.Join(dir, "out"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range names {
		name := e.Name()
		key, linked := store.Linked(name)
		_, complete := store.Meta(key)
		if linked && complete && !removed[key] {
			continue
		}
		if e.Type()&fs.ModeSymlink == 0 {
			continue // not a link kiln made
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
