package plan

import (
	"fmt"
	"path/filepath"
	"strings"
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

// Records finds the record of a stored result by its key, so a revert
// restores a result with all it knew (attributes, outputs, exports), not
// only its files. It reads the records of a state (node records and
// History) as they were when it was opened, and the results Put since. It
// is safe for concurrent use.
type Records struct {
	store *state.Store
	src   *state.State // read once, lazily: a plan that restores nothing never indexes
	once  sync.Once
	mu    sync.Mutex
	byKey map[string]*state.Record
}

// OpenRecords returns the records of st, whose results are in store. st must
// not change afterwards (give an apply a State.Snapshot).
func OpenRecords(st *state.State, store *state.Store) *Records {
	return &Records{store: store, src: st}
}

func (rs *Records) index() {
	rs.once.Do(func() {
		m := map[string]*state.Record{}
		if rs.src != nil {
			for _, r := range rs.src.History {
				if r.Good() && state.ValidEntry(r.Entry) {
					m[r.Key] = r
				}
			}
			for _, r := range rs.src.Records {
				if !r.Good() || !state.ValidEntry(r.Entry) {
					continue
				}
				if o := m[r.Key]; o == nil || r.Started.After(o.Started) {
					m[r.Key] = r
				}
			}
		}
		rs.mu.Lock()
		rs.byKey = m
		rs.mu.Unlock()
	})
}

// Stored returns the record of a result with this key whose run folder is
// in the store, or nil.
func (rs *Records) Stored(key string) *state.Record {
	rs.index()
	rs.mu.Lock()
	r := rs.byKey[key]
	rs.mu.Unlock()
	if r == nil || !rs.store.Exists(r.Entry) {
		return nil
	}
	return r
}

// Put records r as the result of its key, after it was published, so later
// lookups in this process see it and not an older one.
func (rs *Records) Put(r *state.Record) {
	rs.index()
	rs.mu.Lock()
	rs.byKey[r.Key] = r
	rs.mu.Unlock()
}

// KindRecord is the view of a record that kinds see.
func (rs *Records) KindRecord(r *state.Record) *kind.Record {
	if r == nil {
		return nil
	}
	kr := &kind.Record{Key: r.Key, Digest: r.Digest, Attrs: r.Attrs}
	kr.Dir = rs.store.RunPath(r.Entry)
	return kr
}

// OutputDigest is the engine's digest of a result: the Merkle digest of its
// run folder, combined with the digests of its in-place outputs. It returns
// the per-output digests to record.
func OutputDigest(store *state.Store, root, entry string, outputs []string, c *hash.StatCache) (string, []state.Output, error) {
	return OutputDigestRead(store, root, entry, outputs, c, nil)
}

// OutputDigestRead is OutputDigest that adds the bytes it reads to hash
// files to read (when set).
func OutputDigestRead(store *state.Store, root, entry string, outputs []string, c *hash.StatCache, read *atomic.Int64) (string, []state.Output, error) {
	return OutputDigestWith(store, root, entry, outputs, c, hash.TreeOptions{Read: read})
}

// OutputDigestWith is OutputDigest that hashes the run folder with options
// o (see DirDigestWith).
func OutputDigestWith(store *state.Store, root, entry string, outputs []string, c *hash.StatCache, o hash.TreeOptions) (string, []state.Output, error) {
	dir := ""
	if entry != "" {
		dir = store.RunPath(entry)
		if dir == "" {
			return "", nil, fmt.Errorf("the result %s is in an earlier layout of the store", entry)
		}
	}
	return DirDigestWith(dir, root, outputs, c, o)
}

// ResumeEntry is the run folder a failed or interrupted run of key left for
// a resumable node to resume in, according to the node's record rec; "" when
// there is none.
func ResumeEntry(rec *state.Record, key string, store *state.Store) string {
	if rec == nil || rec.Failure == nil || rec.Failure.Key != key || rec.Failure.Entry == rec.Entry {
		return ""
	}
	if e := rec.Failure.Entry; store.Exists(e) {
		return e
	}
	return ""
}

// ResumeReason says that the node resumes in entry's run folder, shown
// relative to the pipeline's root when it lies inside it.
func ResumeReason(store *state.Store, root, entry string) Reason {
	p := store.RunPath(entry)
	if rel, err := filepath.Rel(root, p); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		p = rel
	}
	return Reason{Kind: ReasonResume, Detail: p}
}
