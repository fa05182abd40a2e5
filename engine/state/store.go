package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// ErrEntryComplete is returned by Store.Begin when the key already has a
// complete entry: the caller restores it instead of running again.
var ErrEntryComplete = errors.New("store entry is already complete")

// Store holds the output folders of runs by key, under dir/store. An entry is
// complete when its metadata file dir/store/<key>.json is present and valid;
// a folder without one is an incomplete (failed, interrupted or running) run.
type Store struct {
	dir string // the state folder
}

// EntryMeta describes a complete store entry.
type EntryMeta struct {
	Key     string    `json:"key"`
	Digest  string    `json:"digest"`
	Addr    string    `json:"addr"`
	Created time.Time `json:"created"`
	Size    int64     `json:"size"`
	// Record is the full record of the run that made the entry, so a
	// revert restores everything it knew (attributes, outputs, exports).
	Record *Record `json:"record,omitempty"`
}

// OpenStore returns the store of the state folder dir. Nothing is created
// until it is needed.
func OpenStore(dir string) *Store { return &Store{dir: dir} }

func (s *Store) root() string { return filepath.Join(s.dir, "store") }

// EntryPath is the folder of key's entry: dir/store/<key>.
func (s *Store) EntryPath(key string) string { return filepath.Join(s.root(), key) }

func (s *Store) metaPath(key string) string { return filepath.Join(s.root(), key+".json") }

// checkKey rejects keys that are not one plain path element, so a key can
// never name a file outside the store or one of its temporary or meta files.
func checkKey(key string) error {
	if key == "" || len(key) > 255 || key[0] == '.' || strings.HasSuffix(key, ".json") {
		return fmt.Errorf("invalid store key %q", key)
	}
	for _, c := range key {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return fmt.Errorf("invalid store key %q: only letters, digits, '.', '_' and '-' are allowed", key)
		}
	}
	return nil
}

// Meta returns the metadata of key's entry if the entry is complete: its
// metadata file is valid and names key, and its folder exists. Anything else
// is a miss, never an error.
func (s *Store) Meta(key string) (*EntryMeta, bool) {
	if checkKey(key) != nil {
		return nil, false
	}
	data, err := os.ReadFile(s.metaPath(key))
	if err != nil {
		return nil, false
	}
	var m EntryMeta
	if json.Unmarshal(data, &m) != nil || m.Key != key {
		return nil, false
	}
	if fi, err := os.Lstat(s.EntryPath(key)); err != nil || !fi.IsDir() {
		return nil, false
	}
	return &m, true
}

// Begin prepares the folder for a run of key. An incomplete folder left by an
// earlier run is kept when resumable (resumed is true) and otherwise removed
// and made anew. A complete entry is never touched: the error wraps
// ErrEntryComplete.
func (s *Store) Begin(key string, resumable bool) (path string, resumed bool, err error) {
	if err := checkKey(key); err != nil {
		return "", false, err
	}
	if _, ok := s.Meta(key); ok {
		return "", false, fmt.Errorf("starting a run in %s: %w; restore it instead", s.EntryPath(key), ErrEntryComplete)
	}
	path = s.EntryPath(key)
	// A metadata file that did not make the entry complete is stale.
	if err := os.Remove(s.metaPath(key)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", false, fmt.Errorf("removing stale store metadata: %w", err)
	}
	fi, err := os.Lstat(path)
	switch {
	case err == nil && fi.IsDir() && resumable:
		return path, true, nil
	case err == nil:
		if err := removeTree(path); err != nil {
			return "", false, fmt.Errorf("removing the incomplete run in %s: %w", path, err)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return "", false, fmt.Errorf("preparing store entry: %w", err)
	}
	if err := os.MkdirAll(s.root(), 0o755); err != nil {
		return "", false, fmt.Errorf("creating store: %w", err)
	}
	if err := os.Mkdir(path, 0o755); err != nil {
		return "", false, fmt.Errorf("creating store entry: %w", err)
	}
	return path, false, nil
}

// Complete marks m.Key's entry complete by writing its metadata atomically.
// The entry folder must exist. A zero Created is set to now. The entry's
// own files are not fsynced (that would cost a full pass over large
// outputs); after a power loss, the digest check of the next plan finds
// damaged outputs and repairs them.
func (s *Store) Complete(m EntryMeta) error {
	if err := checkKey(m.Key); err != nil {
		return err
	}
	if fi, err := os.Lstat(s.EntryPath(m.Key)); err != nil || !fi.IsDir() {
		return fmt.Errorf("completing store entry %s: the folder is missing (call Begin first)", m.Key)
	}
	if m.Created.IsZero() {
		m.Created = time.Now().UTC()
	}
	data, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encoding store metadata: %w", err)
	}
	// Written in place, without a temporary file: a torn file is invalid
	// JSON, which Meta reads as an incomplete entry, so the worst a crash
	// can do is cost a rebuild.
	if err := os.WriteFile(s.metaPath(m.Key), append(data, '\n'), 0o644); err != nil {
		os.Remove(s.metaPath(m.Key))
		return fmt.Errorf("completing store entry %s: %w", m.Key, err)
	}
	return nil
}

// Entries returns the complete entries, sorted by key.
func (s *Store) Entries() ([]EntryMeta, error) {
	names, err := s.list()
	if err != nil {
		return nil, err
	}
	var out []EntryMeta
	for _, n := range names {
		if m, ok := s.Meta(n); ok {
			out = append(out, *m)
		}
	}
	return out, nil
}

// Incomplete returns the keys of folders that are not complete entries,
// sorted.
func (s *Store) Incomplete() ([]string, error) {
	names, err := s.list()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range names {
		if _, ok := s.Meta(n); !ok {
			out = append(out, n)
		}
	}
	return out, nil
}

// list returns the keys of the entry folders in the store, sorted.
func (s *Store) list() ([]string, error) {
	des, err := os.ReadDir(s.root())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing store: %w", err)
	}
	var keys []string
	for _, de := range des {
		if de.IsDir() && checkKey(de.Name()) == nil {
			keys = append(keys, de.Name())
		}
	}
	slices.Sort(keys)
	return keys, nil
}

// Remove deletes key's entry: first its metadata, so the entry is never seen
// complete while half deleted, then its folder, read-only files included.
func (s *Store) Remove(key string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	if err := os.Remove(s.metaPath(key)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("removing store entry %s: %w", key, err)
	}
	if err := removeTree(s.EntryPath(key)); err != nil {
		return fmt.Errorf("removing store entry %s: %w", key, err)
	}
	return nil
}

// removeTree removes path and everything below it, first making folders
// writable (tools such as Go's module cache leave read-only trees).
// Symlinks are removed, never followed.
func removeTree(path string) error {
	if err := os.RemoveAll(path); err == nil {
		return nil
	}
	walkErr := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable folders are made writable by their parent's visit; RemoveAll reports what is left
		}
		if d.IsDir() {
			if err := os.Chmod(p, 0o700); err != nil {
				return err
			}
		}
		return nil
	})
	if walkErr != nil {
		return walkErr
	}
	return os.RemoveAll(path)
}
