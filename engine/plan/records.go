package plan

import (
	"sync"
	"sync/atomic"

	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/state"
)

// AttrDigestBy, in a record's attributes, is "kind" when the node's kind
// computed its digest itself (a git tree, a pip freeze) rather than the
// engine hashing its output folder.
const AttrDigestBy = "kiln.digest_by"

// Records finds the full record of a stored result, kept in its store
// entry's metadata, so a revert restores a result with all it knew
// (attributes, outputs, exports), not only its files. It caches what it
// read; it is safe for concurrent use.
type Records struct {
	store *state.Store
	mu    sync.Mutex
	cache map[string]*state.Record
}

// OpenRecords returns the records of a state folder's store.
func OpenRecords(stateDir string, store *state.Store) *Records {
	return &Records{store: store, cache: map[string]*state.Record{}}
}

// Stored returns the record of a complete store entry with this key, or nil.
func (rs *Records) Stored(key string) *state.Record {
	rs.mu.Lock()
	r, ok := rs.cache[key]
	rs.mu.Unlock()
	if ok {
		if _, complete := rs.store.Meta(key); complete {
			return r
		}
		return nil
	}
	m, ok := rs.store.Meta(key)
	if !ok || m.Record == nil || m.Record.Key != key {
		return nil
	}
	rs.mu.Lock()
	rs.cache[key] = m.Record
	rs.mu.Unlock()
	return m.Record
}

// Put records r as the record of its store entry, after the entry was
// completed, so later lookups in this process see it and not an older one.
func (rs *Records) Put(r *state.Record) {
	rs.mu.Lock()
	rs.cache[r.Key] = r
	rs.mu.Unlock()
}

// KindRecord is the view of a record that kinds see.
func (rs *Records) KindRecord(r *state.Record) *kind.Record {
	if r == nil {
		return nil
	}
	kr := &kind.Record{Key: r.Key, Digest: r.Digest, Attrs: r.Attrs}
	if r.Entry != "" {
		kr.Dir = rs.store.EntryPath(r.Entry)
	}
	return kr
}

// OutputDigest is the engine's digest of a result: the Merkle digest of its
// store entry, combined with the digests of its in-place outputs. It returns
// the per-output digests to record.
func OutputDigest(store *state.Store, root, entry string, outputs []string, c *hash.StatCache) (string, []state.Output, error) {
	return OutputDigestRead(store, root, entry, outputs, c, nil)
}

// OutputDigestRead is OutputDigest that adds the bytes it reads to hash
// files to read (when set).
func OutputDigestRead(store *state.Store, root, entry string, outputs []string, c *hash.StatCache, read *atomic.Int64) (string, []state.Output, error) {
	var tree hash.Digest
	if entry != "" {
		var err error
		if tree, err = hash.TreeWith(store.EntryPath(entry), c, hash.TreeOptions{Read: read}); err != nil {
			return "", nil, err
		}
	}
	if len(outputs) == 0 {
		return tree.String(), nil, nil
	}
	lines := []string{"out " + tree.String()}
	var recs []state.Output
	for _, o := range outputs {
		dg, err := digestPathRead(o, c, read)
		if err != nil {
			return "", nil, err
		}
		rel := relTo(root, o)
		lines = append(lines, "output "+rel+" "+dg)
		recs = append(recs, state.Output{Path: rel, Digest: dg})
	}
	return hash.Lines(lines...).String(), recs, nil
}
