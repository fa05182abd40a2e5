package memo

import (
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/state"
)

// session is a memo whose pipeline-wide conditions still hold: the
// configuration, the state, the environment and the files expressions read
// are as it recorded them. Its nodes are left to check.
type session struct {
	memo           *Memo
	info           os.FileInfo // the memo file as it was read
	root, stateDir string
	statOnce       sync.Once
	stat           *hash.StatCache // through statCache
	statLoaded     atomic.Bool
	store          *state.Store
	sources        []string    // the files the configuration's digest read
	unsealed       atomic.Bool // a node (or source) to seal again: see reseal
	reseal         []bool      // by node: a seal that did not hold, or none where one may be made
	storeRoot      *hash.Root  // the store folder held open, or nil
	why            *whyNot
	// byNode: the pipeline's files changed since the memo, but not what
	// every node reads beyond its own block (Memo.Shared); a node is then
	// as recorded only while its own configuration is (Node.Config).
	byNode bool
}

// open reads the memo of the pipeline at o.Path and checks what it says
// of the pipeline as a whole; false means the full path. Given the loaded
// pipeline p, a change to its node blocks alone leaves the memo open, to
// be checked node by node (session.byNode).
func open(o Options, p *config.Pipeline, why *whyNot) (*session, bool) {
	if o.Full != "" {
		return nil, why.miss("%s", o.Full)
	}
	files, root, err := config.Files(o.Path)
	if err != nil {
		return nil, why.miss("%v", err)
	}
	stateDir := filepath.Join(root, ".kiln")
	info, err := os.Stat(Path(stateDir))
	if err != nil {
		return nil, why.miss("no memo: the last plan or apply did not find every node up to date, or the pipeline does not qualify (its reason was given then)")
	}
	b, err := os.ReadFile(Path(stateDir))
	if err != nil {
		return nil, why.miss("the memo: %v", err)
	}
	m, ok := decode(b)
	if !ok || m.Format != Format {
		return nil, why.miss("the memo is damaged or of another kiln")
	}
	lineage, serial, ok := state.ReadStamp(stateDir)
	switch {
	case !ok || lineage != m.Lineage || serial != m.Serial:
		return nil, why.miss("the state changed since the memo (serial %d then)", m.Serial)
	case !hash.FileHolds(state.SnapshotPath(stateDir), m.State):
		return nil, why.miss("the state file was written since the memo")
	case state.HasRunLog(stateDir):
		// An apply runs, or one died: the full plan says what it left.
		return nil, why.miss("an apply is running, or one died")
	}
	s := &session{memo: m, info: info, root: root, stateDir: stateDir, store: state.OpenStore(stateDir), why: why}
	if o.Stat != nil {
		s.statOnce.Do(func() { s.stat = o.Stat }) // the caller saves it
	}
	sealed := make(map[string]Source, len(m.Sources))
	for _, src := range m.Sources {
		sealed[src.Path] = src
	}
	digest := func(path string) (hash.Digest, error) {
		s.sources = append(s.sources, path)
		if src, ok := sealed[path]; ok && hash.FileHolds(path, src.Stamp) {
			return src.Digest, nil
		}
		s.unsealed.Store(true)
		return hash.File(path, s.statCache())
	}
	if configDigest(o.Version, files, o.Vars, o.VarFiles, digest) != m.Config {
		if p == nil {
			return nil, why.miss("the pipeline's files, lock, variables or KILN_VAR_ environment changed")
		}
		hashed := func(path string) (hash.Digest, error) { return hash.File(path, s.statCache()) }
		if m.Shared == "" || sharedDigest(o.Version, p, hashed) != m.Shared {
			return nil, why.miss("what every node may read changed: the pipeline's kiln, pool, executor, cache or moved blocks, or its lock")
		}
		s.byNode = true
	}
	// Environment values are hashed as key lines hash them: with the state
	// folder's secret.
	secret := state.SecretOf(stateDir)
	for _, e := range m.Env {
		if sum, err := secret.Sum([]byte(os.Getenv(e.Path))); err != nil || sum != e.Digest {
			return nil, why.miss("the environment variable %s changed", e.Path)
		}
	}
	for _, f := range m.Reads {
		if !sameRead(f, s.statCache) {
			return nil, why.miss("%s, which an expression read (%s), changed", relToRoot(root, f.Path), f.What)
		}
	}
	return s, true
}

// statCache is the stat cache, loaded when first needed: a check whose
// seals all hold never reads it.
func (s *session) statCache() *hash.StatCache {
	s.statOnce.Do(func() {
		s.stat = hash.LoadStatCache(filepath.Join(s.stateDir, "cache", "stat"))
		s.statLoaded.Store(true)
	})
	return s.stat
}

// saveStat keeps what the checks hashed for the next command.
func (s *session) saveStat() {
	if s.statLoaded.Load() {
		_ = s.statCache().Save(filepath.Join(s.stateDir, "cache", "stat"))
	}
}

// sameRead reports whether a file still reads as an expression saw it.
func sameRead(f config.FileRead, stat func() *hash.StatCache) bool {
	switch f.What {
	case config.ReadExists:
		fi, err := os.Stat(f.Path)
		return strconv.FormatBool(err == nil && fi.Mode().IsRegular()) == f.Seen
	case config.ReadFileset, config.ReadWildcards:
		return config.Relist(f)
	case config.ReadContent:
		if f.Seen == config.ReadFailed {
			_, err := os.ReadFile(f.Path)
			return err != nil
		}
		d, err := hash.File(f.Path, stat())
		return err == nil && d.String() == f.Seen
	}
	return false
}

// fullNode is why the memo's answers that load no pipeline cannot be
// given: the first node the full plan decides at every plan, and why; ""
// when there is none.
func (s *session) fullNode() string {
	for _, n := range s.memo.Nodes {
		if n.Full != "" {
			return n.Addr + ": " + n.Full
		}
	}
	return ""
}
