package engine

import (
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
	for _, r := range s.Records {
		if r.Entry != "" {
			inUse[r.Entry] = true
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
		if inUse[e.Key] || (o.OlderThan > 0 && e.Created.After(cutoff)) {
			rep.Kept++
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
