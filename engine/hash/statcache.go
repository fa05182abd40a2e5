package hash

import (
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// racyWindow is how long after a file's last change its digest is not
// cached: timestamps are coarse (a kernel tick, or whole seconds on some
// filesystems), so a write inside the window may leave the signature as is.
const racyWindow = 2 * time.Second

// signature is what a stat call says about a file: when all of it is
// unchanged, so is the content.
type signature struct {
	dev, ino           uint64
	size, mtime, ctime int64 // mtime and ctime in nanoseconds since 1970
}

// racy reports whether a file with this signature, hashed starting at
// start, may change again without changing its signature.
func (s signature) racy(start time.Time) bool {
	limit := start.Add(-racyWindow).UnixNano()
	return s.mtime > limit || s.ctime > limit
}

type cacheEntry struct {
	sig    signature
	digest Digest
}

// pathEntry is a cache entry with its path, as kept sorted and saved.
type pathEntry struct {
	path string
	cacheEntry
}

// StatCache remembers file content digests by stat signature, so an
// unchanged tree is verified with stat calls only. Safe for concurrent use.
//
// Entries live in two places, both keyed by absolute cleaned path: sorted,
// the ones loaded or last saved (searched by bisection, so loading builds
// no map), and in a map, the ones stored since, which take precedence.
type StatCache struct {
	mu       sync.RWMutex
	sorted   []pathEntry           // strictly increasing paths; replaced, never changed in place
	recent   map[string]cacheEntry // stored since load or save
	size     int                   // distinct paths in sorted and recent
	gen      uint64                // bumped by every change
	savedGen uint64                // gen when last loaded or saved

	hits, misses atomic.Int64 // lookups, for tests and benchmarks
}

// NewStatCache returns an empty in-memory cache.
func NewStatCache() *StatCache {
	return &StatCache{recent: make(map[string]cacheEntry)}
}

// Len returns the number of cached files.
func (c *StatCache) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.size
}

// Prune drops every entry whose path keep rejects (used by gc). keep is
// called with the cache locked and must not call the cache.
func (c *StatCache) Prune(keep func(path string) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	before := c.size
	// A new slice: Save may be encoding the old one without the lock.
	kept := make([]pathEntry, 0, len(c.sorted))
	for _, e := range c.sorted {
		if keep(e.path) {
			kept = append(kept, e)
		}
	}
	c.sorted = kept
	c.size = len(kept)
	for p := range c.recent {
		if !keep(p) {
			delete(c.recent, p)
		} else if _, ok := c.findSorted(p); !ok {
			c.size++
		}
	}
	if c.size != before {
		c.gen++
	}
}

// lookup returns the digest cached for abs when its signature is sig.
func (c *StatCache) lookup(abs string, sig signature) (Digest, bool) {
	c.mu.RLock()
	e, ok := c.find(abs)
	c.mu.RUnlock()
	if ok && e.sig == sig {
		c.hits.Add(1)
		return e.digest, true
	}
	c.misses.Add(1)
	return Digest{}, false
}

// store records the digest of abs, hashed starting at start, unless the
// file changed too recently for its signature to be trusted.
func (c *StatCache) store(abs string, sig signature, d Digest, start time.Time) {
	if sig.racy(start) {
		return
	}
	e := cacheEntry{sig: sig, digest: d}
	c.mu.Lock()
	defer c.mu.Unlock()
	old, ok := c.find(abs)
	if ok && old == e {
		return
	}
	if !ok {
		c.size++
	}
	c.recent[abs] = e
	c.gen++
}

// find returns the entry of abs. The caller holds c.mu.
func (c *StatCache) find(abs string) (cacheEntry, bool) {
	if e, ok := c.recent[abs]; ok {
		return e, true
	}
	return c.findSorted(abs)
}

func (c *StatCache) findSorted(abs string) (cacheEntry, bool) {
	i, ok := slices.BinarySearchFunc(c.sorted, abs, func(e pathEntry, p string) int { return strings.Compare(e.path, p) })
	if !ok {
		return cacheEntry{}, false
	}
	return c.sorted[i].cacheEntry, true
}

// merge folds the recent entries into the sorted ones and returns them.
// The caller holds c.mu for writing.
func (c *StatCache) merge() []pathEntry {
	if len(c.recent) == 0 {
		return c.sorted
	}
	merged := make([]pathEntry, 0, c.size)
	for _, e := range c.sorted {
		if _, ok := c.recent[e.path]; !ok {
			merged = append(merged, e)
		}
	}
	for p, e := range c.recent {
		merged = append(merged, pathEntry{p, e})
	}
	slices.SortFunc(merged, func(a, b pathEntry) int { return strings.Compare(a.path, b.path) })
	c.sorted = merged
	c.recent = make(map[string]cacheEntry)
	return merged
}

// cacheKey returns the key under which path is cached.
func cacheKey(path string) (string, error) {
	return filepath.Abs(path) // Abs cleans
}
