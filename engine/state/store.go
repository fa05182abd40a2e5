package state

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// Store holds the run folders of nodes under dir/store. Every run gets a
// folder of its own, dir/store/<key[:2]>/<key>/<run>, made fresh and never
// moved or reused: a venv or a CMake build that embeds its own path keeps
// working, and a process left over from a killed run can only write into
// that run's folder. The two-character shard spreads the store's folders,
// so runs of many nodes do not all create entries in one directory.
//
// The store itself records nothing about its folders: which run is a
// node's result is the state's business (Record.Entry), so publishing a
// result costs no metadata file. A run folder that no record names is
// garbage — a failed, interrupted or superseded run — and kiln gc removes it.
type Store struct {
	dir string // the state folder
}

// OpenStore returns the store of the state folder dir. Nothing is created
// until it is needed.
func OpenStore(dir string) *Store { return &Store{dir: dir} }

func (s *Store) root() string { return filepath.Join(s.dir, "store") }

// Root is the store folder, dir/store.
func (s *Store) Root() string { return s.root() }

// tmpDir holds temporary files of the state folder (links being replaced);
// whatever is in it when the apply lock is taken is left from a crash.
func (s *Store) tmpDir() string { return filepath.Join(s.dir, tmpName) }

const tmpName = "tmp"

// shard is the folder of the store that holds key's runs.
func shard(key string) string { return key[:2] }

// keyDir is the folder holding every run of key.
func (s *Store) keyDir(key string) string {
	return filepath.Join(s.root(), shard(key), key)
}

// Entry names one run folder: "KEY/RUN". Records keep it (Record.Entry), and
// stable links point at it.
func Entry(key, run string) string { return key + "/" + run }

// ParseEntry splits an entry into its key and run name. Entries of the
// store's earlier layout (a key alone) and anything else malformed are not
// ok, so they are never taken for a result.
func ParseEntry(entry string) (key, run string, ok bool) {
	key, run, found := strings.Cut(entry, "/")
	if !found || checkKey(key) != nil || checkRun(run) != nil {
		return "", "", false
	}
	return key, run, true
}

// ValidEntry reports whether entry names a run folder in the current layout.
func ValidEntry(entry string) bool {
	_, _, ok := ParseEntry(entry)
	return ok
}

// RunPath is the folder of entry; "" when the entry is malformed.
func (s *Store) RunPath(entry string) string {
	key, run, ok := ParseEntry(entry)
	if !ok {
		return ""
	}
	return filepath.Join(s.keyDir(key), run)
}

// checkKey rejects keys that are not one plain path element of at least
// two characters (the shard), so a key never names a file outside the store.
func checkKey(key string) error {
	if len(key) < 2 || len(key) > 200 || key[0] == '.' {
		return fmt.Errorf("invalid store key %q", key)
	}
	for _, c := range key {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return fmt.Errorf("invalid store key %q: only letters, digits, '.', '_' and '-' are allowed", key)
		}
	}
	return nil
}

// checkRun accepts the run names NewRun makes: 1 to 32 lowercase letters and
// digits.
func checkRun(run string) error {
	if run == "" || len(run) > 32 {
		return fmt.Errorf("invalid run name %q", run)
	}
	for _, c := range run {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return fmt.Errorf("invalid run name %q", run)
		}
	}
	return nil
}

func newRunName() string {
	var b [5]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// NewRun makes a fresh, empty run folder for key and returns its entry and
// path. It costs two mkdir calls: the key's folder (which exists already
// only for a rerun under the same key), then the run's.
func (s *Store) NewRun(key string) (entry, path string, err error) {
	if err := checkKey(key); err != nil {
		return "", "", err
	}
	kd := s.keyDir(key)
	err = os.Mkdir(kd, 0o755)
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.MkdirAll(filepath.Dir(kd), 0o755); err == nil { // the shard's first key
			err = os.Mkdir(kd, 0o755)
		}
	}
	if err == nil || errors.Is(err, fs.ErrExist) {
		for range 8 {
			run := newRunName()
			path = filepath.Join(kd, run)
			if err = os.Mkdir(path, 0o755); err == nil {
				return Entry(key, run), path, nil
			}
			if !errors.Is(err, fs.ErrExist) {
				break
			}
		}
	}
	return "", "", fmt.Errorf("creating a run folder in %s: %s%w; %s", kd, spaceProblem(err), err, spaceAdvice(err))
}

// Exists reports whether entry's run folder is there.
func (s *Store) Exists(entry string) bool {
	p := s.RunPath(entry)
	if p == "" {
		return false
	}
	fi, err := os.Lstat(p)
	return err == nil && fi.IsDir()
}

// RemoveRun deletes entry's run folder, read-only files included, and the
// key's folder once it holds no other run. A missing folder is not an error.
func (s *Store) RemoveRun(entry string) error {
	key, _, ok := ParseEntry(entry)
	if !ok {
		return fmt.Errorf("invalid store entry %q", entry)
	}
	if err := removeTree(s.RunPath(entry)); err != nil {
		return fmt.Errorf("removing run folder %s: %w", entry, err)
	}
	// Fails harmlessly while other runs of the key remain.
	if err := os.Remove(s.keyDir(key)); err != nil && !errors.Is(err, syscall.ENOTEMPTY) && !errors.Is(err, syscall.EEXIST) && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("removing store folder of %s: %w", key, err)
	}
	return nil
}

// Runs returns the entries of every run folder in the store, sorted.
func (s *Store) Runs() ([]string, error) {
	shards, err := readDirNames(s.root())
	if err != nil {
		return nil, err
	}
	var out []string
	for _, sh := range shards {
		if len(sh) != 2 || checkKey(sh) != nil {
			continue // see Strays
		}
		keys, err := readDirNames(filepath.Join(s.root(), sh))
		if errors.Is(err, syscall.ENOTDIR) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, key := range keys {
			if checkKey(key) != nil || shard(key) != sh {
				continue
			}
			runs, err := readDirNames(s.keyDir(key))
			if errors.Is(err, syscall.ENOTDIR) {
				continue
			}
			if err != nil {
				return nil, err
			}
			for _, run := range runs {
				if checkRun(run) == nil {
					out = append(out, Entry(key, run))
				}
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

// Strays returns what lies in the store folder outside the layout — entries
// of an earlier store layout, or files dropped there by hand — as paths
// relative to the store folder, sorted.
func (s *Store) Strays() ([]string, error) {
	names, err := readDirNames(s.root())
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range names {
		fi, err := os.Lstat(filepath.Join(s.root(), n))
		if err == nil && fi.IsDir() && len(n) == 2 && checkKey(n) == nil {
			continue
		}
		out = append(out, n)
	}
	return out, nil
}

// RemoveStray removes a path Strays returned.
func (s *Store) RemoveStray(name string) error {
	if name == "" || strings.ContainsAny(name, "/\x00") || name == "." || name == ".." {
		return fmt.Errorf("invalid store path %q", name)
	}
	return removeTree(filepath.Join(s.root(), name))
}

// readDirNames lists a folder's names, sorted; a missing folder is empty.
func readDirNames(dir string) ([]string, error) {
	des, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", dir, err)
	}
	names := make([]string, len(des))
	for i, de := range des {
		names[i] = de.Name()
	}
	return names, nil
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
