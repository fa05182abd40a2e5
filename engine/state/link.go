package state

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// The stable output path of a node is dir/out/<FileName>, a symlink with
// the relative target ../store/<shard>/<key>-<run>, so the state folder can
// be moved.

func (s *Store) outDir() string { return filepath.Join(s.dir, "out") }

// LinksDir is the folder of the stable links, dir/out. A link's target
// changes only by an entry of this folder being made, replaced or removed
// (a symlink cannot be rewritten in place), which gives the folder a new
// mtime and ctime: while its stat signature is one taken before the links
// were read, they still point where they did (see hash.Stamp).
func (s *Store) LinksDir() string { return s.outDir() }

// OutPath is the stable output path dir/out/<fileName>.
func (s *Store) OutPath(fileName string) string { return filepath.Join(s.outDir(), fileName) }

func linkTarget(entry string) string {
	key, _, _ := ParseEntry(entry)
	return "../store/" + shard(key) + "/" + entry
}

// checkFileName rejects names that are not one plain path element; names
// starting with '.' are kept for temporary links.
func checkFileName(name string) error {
	if name == "" || name[0] == '.' || strings.ContainsAny(name, "/\x00") {
		return fmt.Errorf("invalid output name %q", name)
	}
	return nil
}

// Link atomically points the stable path of fileName at entry's run folder:
// the first link is made in place (one symlink call); a link that exists is
// replaced by a symlink made under a temporary name in dir/tmp and renamed
// over it, so readers see the old or the new target, never none. Neither is
// fsynced: a link lost to a power cut is found by the next plan's drift check
// and made again.
func (s *Store) Link(fileName, entry string) error {
	if err := checkFileName(fileName); err != nil {
		return err
	}
	if !ValidEntry(entry) {
		return fmt.Errorf("linking %s: invalid store entry %q", fileName, entry)
	}
	dst := s.OutPath(fileName)
	target := linkTarget(entry)
	err := os.Symlink(target, dst)
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.MkdirAll(s.outDir(), 0o755); err != nil {
			return fmt.Errorf("creating output links folder: %w", err)
		}
		err = os.Symlink(target, dst)
	}
	if err == nil || !errors.Is(err, fs.ErrExist) {
		if err != nil {
			return fmt.Errorf("linking %s: %w", dst, err)
		}
		return nil
	}
	if fi, err := os.Lstat(dst); err == nil && fi.Mode()&fs.ModeSymlink == 0 {
		return fmt.Errorf("linking %s: it exists and is not a symlink made by kiln; move it away and run again", dst)
	}
	var rnd [8]byte
	rand.Read(rnd[:])
	tmp := filepath.Join(s.tmpDir(), fileName+".link-"+hex.EncodeToString(rnd[:]))
	err = os.Symlink(target, tmp)
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.MkdirAll(s.tmpDir(), 0o755); err == nil {
			err = os.Symlink(target, tmp)
		}
	}
	if err != nil {
		return fmt.Errorf("linking %s: %w", dst, err)
	}
	if err := os.Rename(tmp, dst); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("linking %s: %w", dst, err)
	}
	return nil
}

// Linked returns the entry the stable path of fileName points at, if it is
// a link into the store in the current layout.
func (s *Store) Linked(fileName string) (entry string, ok bool) {
	if checkFileName(fileName) != nil {
		return "", false
	}
	target, err := os.Readlink(s.OutPath(fileName))
	if err != nil {
		return "", false
	}
	rest, found := strings.CutPrefix(target, "../store/")
	if !found {
		return "", false
	}
	sh, entry, found := strings.Cut(rest, "/")
	key, _, ok := ParseEntry(entry)
	if !found || !ok || shard(key) != sh {
		return "", false
	}
	return entry, true
}

// Unlink removes the stable path of fileName. A missing link is not an
// error; anything other than a symlink is left alone and reported.
func (s *Store) Unlink(fileName string) error {
	if err := checkFileName(fileName); err != nil {
		return err
	}
	p := s.OutPath(fileName)
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("unlinking %s: %w", p, err)
	}
	if fi.Mode()&fs.ModeSymlink == 0 {
		return fmt.Errorf("unlinking %s: it is not a symlink made by kiln; remove it by hand if it is not needed", p)
	}
	if err := os.Remove(p); err != nil {
		return fmt.Errorf("unlinking %s: %w", p, err)
	}
	return syncDir(s.outDir())
}
