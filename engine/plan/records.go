package plan

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"

	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/state"
)

// AttrDigestBy, in a record's attributes, is "kind" when the node's kind
// computed its digest itself (a git tree, a pip freeze) rather than the
// engine hashing its output folder.
const AttrDigestBy = "kiln.digest_by"

// Records keeps the full record of every stored result beside the store,
// under .kiln/records/KEY.json, so a revert restores a result with all it
// knew (attributes, outputs, exports), not only its files.
type Records struct {
	dir   string
	store *state.Store
	mu    sync.Mutex
	cache map[string]*state.Record
}

// OpenRecords returns the record side-store of a state folder.
func OpenRecords(stateDir string, store *state.Store) *Records {
	return &Records{dir: filepath.Join(stateDir, "records"), store: store, cache: map[string]*state.Record{}}
}

// Save keeps r as the record of the store entry r.Key.
func (rs *Records) Save(r *state.Record) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(rs.dir, 0o755); err != nil {
		return err
	}
	// Not fsynced: a lost record only costs a restore becoming a rebuild.
	if err := state.ReplaceFile(filepath.Join(rs.dir, r.Key+".json"), b, 0o644); err != nil {
		return err
	}
	rs.mu.Lock()
	rs.cache[r.Key] = r
	rs.mu.Unlock()
	return nil
}

// Stored returns the record of a complete store entry with this key, or nil.
func (rs *Records) Stored(key string) *state.Record {
	if _, ok := rs.store.Meta(key); !ok {
		return nil
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if r, ok := rs.cache[key]; ok {
		return r
	}
	b, err := os.ReadFile(filepath.Join(rs.dir, key+".json"))
	if err != nil {
		return nil
	}
	var r state.Record
	if json.Unmarshal(b, &r) != nil || r.Key != key {
		return nil
	}
	rs.cache[key] = &r
	return &r
}

// Remove forgets the record of a store entry.
func (rs *Records) Remove(key string) error {
	rs.mu.Lock()
	delete(rs.cache, key)
	rs.mu.Unlock()
	err := os.Remove(filepath.Join(rs.dir, key+".json"))
	if os.IsNotExist(err) {
		return nil
	}
	return err
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
	var tree hash.Digest
	if entry != "" {
		var err error
		if tree, err = hash.Tree(store.EntryPath(entry), c); err != nil {
			return "", nil, err
		}
	}
	if len(outputs) == 0 {
		return tree.String(), nil, nil
	}
	lines := []string{"out " + tree.String()}
	var recs []state.Output
	for _, o := range outputs {
		dg, err := digestPath(o, c)
		if err != nil {
			return "", nil, err
		}
		rel := relTo(root, o)
		lines = append(lines, "output "+rel+" "+dg)
		recs = append(recs, state.Output{Path: rel, Digest: dg})
	}
	return hash.Lines(lines...).String(), recs, nil
}
