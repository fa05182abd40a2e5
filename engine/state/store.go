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
)

// Store holds the run folders of nodes under dir/store. Every run gets a
// folder of its own, dir/store/<key[:2]>/<key>-<run>, made fresh and never
// moved or reused: a venv or a CMake build that embeds its own path keeps
// working, and a process left over from a killed run can only write into
// that run's folder. Making one costs one mkdir. The two-character shard
// spreads the store's folders, so runs of many nodes do not all create
// entries in one directory.
//
// The store itself records nothing about its folders: which run is a
// node's result is the state's business (Record.Entry), so publishing a
// result costs no metadata file. A run folder that no record names is
// garbage — a failed, interrupted or superseded run — and kiln gc removes it.
type Store struct {
	dir     string // the state folder
	rootDir string // dir/store, cleaned
}

// OpenStore returns the store of the state folder dir. Nothing is created
// until it is needed.
func OpenStore(dir string) *Store { return &Store{dir: dir, rootDir: filepath.Join(dir, "store")} }

// Root is the store folder, dir/store.
func (s *Store) Root() string { return s.rootDir }

// tmpDir holds temporary files of the state folder (links being replaced);
// whatever is in it when the apply lock is taken is left from a crash.
func (s *Store) tmpDir() string { return filepath.Join(s.dir, tmpName) }

const tmpName = "tmp"

// shard is the folder of the store that holds key's runs.
func shard(key string) string { return key[:2] }

// Entry names one run folder, "KEY-RUN", as records keep it (Record.Entry)
// and the folder is named.
func Entry(key, run string) string { return key + "-" + run }

// ParseEntry splits an entry into its key and run name (the run name holds
// no "-"; a key may). Entries of the store's earlier layouts (a key alone,
// or KEY/RUN) and anything else malformed are not ok, so they are never
// taken for a result.
func ParseEntry(entry string) (key, run string, ok bool) {
	i := strings.LastIndexByte(entry, '-')
	if i < 0 {
		return "", "", false
	}
	key, run = entry[:i], entry[i+1:]
	if checkKey(key) != nil || checkRun(run) != nil {
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
	key, _, ok := ParseEntry(entry)
	if !ok {
		return ""
	}
	// Clean as it is: a valid key and entry are plain path elements.
	return s.rootDir + string(filepath.Separator) + shard(key) + string(filepath.Separator) + entry
}

// RunEnv names the variable that holds the entry of the run a process
// belongs to. Every run's environment has it beside KILN_OUT, which a
// relocated run sees at a fixed place rather than at its run folder.
const RunEnv = "KILN_RUN"

// RunMarkers are the environment entries that mark the processes of the
// run entry, for finding what a killed run left running: its RunEnv, and
// the KILN_OUT of a run that saw its run folder at the host's path.
func (s *Store) RunMarkers(entry string) []string {
	return []string{RunEnv + "=" + entry, "KILN_OUT=" + s.RunPath(entry)}
}

// RunShard is the folder below Root that holds entry's run folder:
// RunPath(entry) is Root/RunShard(entry)/entry. false when the entry is
// malformed.
func RunShard(entry string) (string, bool) {
	key, _, ok := ParseEntry(entry)
	if !ok {
		return "", false
	}
	return shard(key), true
}

// InRun reports whether path lies inside a run folder of the store, the
// folder's entry, and path's place inside that folder ("" for the folder
// itself).
func (s *Store) InRun(path string) (entry, rest string, ok bool) {
	rel, err := filepath.Rel(s.rootDir, path)
	if err != nil {
		return "", "", false
	}
	parts := strings.SplitN(filepath.ToSlash(rel), "/", 3)
	if len(parts) < 2 {
		return "", "", false
	}
	key, _, ok := ParseEntry(parts[1])
	if !ok || parts[0] != shard(key) {
		return "", "", false
	}
	if len(parts) == 3 {
		rest = parts[2]
	}
	return parts[1], rest, true
}

// checkKey rejects keys that are not one plain path element of at least
// two characters (the shard), so a key never names a file outside the store.
func checkKey(key string) error {
	if len(key) < 2 || len(key) > 200 || key[0] == '.' {
		return fmt.Errorf("invalid store key %q", key)
	}
	for i := 0; i < len(key); i++ {
		if !keyByte[key[i]] {
			return fmt.Errorf("invalid store key %q: only letters, digits, '.', '_' and '-' are allowed", key)
		}
	}
	return nil
}

// keyByte and runByte are the bytes a key and a run name may hold (the
// check runs for every entry a no-op plan looks at).
var keyByte, runByte = func() (k, r [256]bool) {
	for c := 0; c < 256; c++ {
		lower, digit := c >= 'a' && c <= 'z', c >= '0' && c <= '9'
		k[c] = lower || digit || c >= 'A' && c <= 'Z' || c == '_' || c == '-' || c == '.'
		r[c] = lower || digit
	}
	return k, r
}()

// checkRun accepts the run names NewRun makes: 1 to 32 lowercase letters and
// digits.
func checkRun(run string) error {
	if run == "" || len(run) > 32 {
		return fmt.Errorf("invalid run name %q", run)
	}
	for i := 0; i < len(run); i++ {
		if !runByte[run[i]] {
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
// path: one mkdir (and, for the first run of a shard, the shard's).
func (s *Store) NewRun(key string) (entry, path string, err error) {
	return s.NewRunAfter(key, nil)
}

// NewRunAfter is NewRun that first calls before with the entry it is about
// to make, so that the run is journaled before its folder exists: a kiln
// killed in between leaves a journaled run without a folder, never a
// folder no journal names. An error of before is returned, and no folder
// made.
func (s *Store) NewRunAfter(key string, before func(entry string) error) (entry, path string, err error) {
	if err := checkKey(key); err != nil {
		return "", "", err
	}
	dir := filepath.Join(s.rootDir, shard(key))
	for range 8 {
		entry = Entry(key, newRunName())
		path = filepath.Join(dir, entry)
		if before != nil {
			if err := before(entry); err != nil {
				return "", "", err
			}
		}
		err = os.Mkdir(path, 0o755)
		if errors.Is(err, fs.ErrNotExist) {
			if err = os.MkdirAll(dir, 0o755); err == nil {
				err = os.Mkdir(path, 0o755)
			}
		}
		if err == nil {
			return entry, path, nil
		}
		if !errors.Is(err, fs.ErrExist) || before != nil {
			break // a journaled name is not tried again
		}
	}
	return "", "", fmt.Errorf("creating a run folder in %s: %s%w; %s", dir, spaceProblem(err), err, spaceAdvice(err))
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

// RemoveRun deletes entry's run folder, read-only files included. A missing
// folder is not an error.
func (s *Store) RemoveRun(entry string) error {
	path := s.RunPath(entry)
	if path == "" {
		return fmt.Errorf("invalid store entry %q", entry)
	}
	if err := removeTree(path); err != nil {
		return fmt.Errorf("removing run folder %s: %w", entry, err)
	}
	return nil
}

// Runs returns the entries of every run folder in the store, sorted.
func (s *Store) Runs() ([]string, error) {
	var out []string
	err := s.walk(func(sh, name string, isDir bool) error {
		if key, _, ok := ParseEntry(name); ok && isDir && shard(key) == sh {
			out = append(out, name)
		}
		return nil
	})
	slices.Sort(out)
	return out, err
}

// Strays returns what lies in the store folder outside its layout —
// folders of earlier store layouts (store/KEY, store/SHARD/KEY/RUN), files
// dropped there by hand — as paths relative to the store folder, sorted.
func (s *Store) Strays() ([]string, error) {
	var out []string
	err := s.walk(func(sh, name string, isDir bool) error {
		if sh == "" {
			out = append(out, name)
		} else if key, _, ok := ParseEntry(name); !ok || !isDir || shard(key) != sh {
			out = append(out, sh+"/"+name)
		}
		return nil
	})
	slices.Sort(out)
	return out, err
}

// walk calls f for every name in the shard folders (sh, name), and for
// every name at the top of the store that is not a shard folder ("", name).
func (s *Store) walk(f func(sh, name string, isDir bool) error) error {
	top, err := os.ReadDir(s.rootDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("listing the store: %w", err)
	}
	for _, t := range top {
		if !t.IsDir() || len(t.Name()) != 2 || checkKey(t.Name()) != nil {
			if err := f("", t.Name(), t.IsDir()); err != nil {
				return err
			}
			continue
		}
		des, err := os.ReadDir(filepath.Join(s.rootDir, t.Name()))
		if err != nil {
			return fmt.Errorf("listing the store: %w", err)
		}
		for _, de := range des {
			if err := f(t.Name(), de.Name(), de.IsDir()); err != nil {
				return err
			}
		}
	}
	return nil
}

// RemoveStray removes a path Strays returned.
func (s *Store) RemoveStray(name string) error {
	parts := strings.Split(name, "/")
	for _, p := range parts {
		if p == "" || p == "." || p == ".." || strings.ContainsRune(p, 0) {
			return fmt.Errorf("invalid store path %q", name)
		}
	}
	if len(parts) > 2 {
		return fmt.Errorf("invalid store path %q", name)
	}
	return removeTree(filepath.Join(s.rootDir, filepath.FromSlash(name)))
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
