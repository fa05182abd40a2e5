package hash

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// TreeOptions tunes TreeWith.
type TreeOptions struct {
	// Workers is the number of goroutines hashing files; 0 (or less) means
	// GOMAXPROCS. The digest does not depend on it.
	Workers int
	// Exclude, when set, leaves out every entry whose relative slash path it
	// accepts, and with a folder all it holds. The root is never excluded.
	Exclude func(rel string) bool
	// Read, when set, is increased by the bytes of every file read and
	// hashed (files the stat cache vouches for are not read).
	Read *atomic.Int64
	// Listing, when set and without Exclude or FollowLinks, stands for
	// reading the root folder as long as the folder's stat signature is the
	// listing's.
	Listing *Listing
	// Listed, when set and without Exclude or FollowLinks, is given the
	// Listing of the root folder that ListFolder would return, when the
	// folder is read rather than vouched for by Listing: one read of a
	// result's folder both checks its digest and lists it for the memo.
	Listed func(*Listing)
	// FollowLinks hashes every symlink, the root included, as an 'L' line
	// that carries both its text and what it leads to: the content of a
	// regular file, or the tree digest of a folder (hashed with these
	// options, Exclude aside). A link that dangles or loops is a
	// *LinkError, one to a device, a FIFO or a socket a *NotRegularError.
	// A node's inputs are hashed so; results never are (see the package
	// doc). Without links in the tree, the digest is the same either way.
	FollowLinks bool
	// open are the real paths of the folders holding the followed links
	// that led here, outermost first: a link into one of them is a loop.
	open []string
}

// Tree returns the Merkle digest of path: a regular file, a symlink or a
// folder. Symlinks are never followed (TreeWith with FollowLinks does).
// See the package doc for the lines.
func Tree(path string, c *StatCache) (Digest, error) {
	return TreeWith(path, c, TreeOptions{})
}

// TreeWith is Tree with options.
func TreeWith(path string, c *StatCache, o TreeOptions) (Digest, error) {
	entries, err := manifest(path, c, o)
	if err != nil {
		return Digest{}, err
	}
	return EntriesDigest(entries), nil
}

// EntriesDigest is the tree digest of entries sorted by Path, as Manifest
// returns them: Tree of a folder equals EntriesDigest of its Manifest, so a
// tree described elsewhere (a remote cache's record) can be checked against
// a digest without its files.
func EntriesDigest(entries []Entry) Digest {
	// The hash of every entry's line, without building the strings.
	h := sha256.New()
	var line []byte
	for _, e := range entries {
		line = append(e.appendLine(line[:0]), '\n')
		h.Write(line)
	}
	var d Digest
	h.Sum(d[:0])
	return d
}

// manifest lists the tree at path and hashes its files.
func manifest(path string, c *StatCache, o TreeOptions) ([]Entry, error) {
	root, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("hash %s: %w", path, err)
	}
	start := time.Now()
	info, err := os.Lstat(root)
	if err != nil {
		return nil, fmt.Errorf("hash tree: %w", err)
	}
	var entries []Entry
	switch mode := info.Mode(); {
	case mode.IsDir() && o.Exclude == nil && !o.FollowLinks && o.Listing.vouches(info):
		// A copy: hashFiles fills in sizes and digests.
		entries = slices.Clone(o.Listing.Entries)
	case mode.IsDir():
		entries, err = listTree(root, c, o)
		if err == nil && o.Listed != nil && o.Exclude == nil && !o.FollowLinks {
			if l, ok := listingOf(info, slices.Clone(entries), start); ok {
				o.Listed(l)
			}
		}
	case mode.IsRegular():
		entries = []Entry{{Path: ".", Kind: 'f'}}
	case mode&fs.ModeSymlink != 0 && o.FollowLinks:
		var holder string
		if holder, err = realFolder(filepath.Dir(root)); err == nil {
			var e Entry
			e, err = followLink(root, ".", holder, c, o)
			entries = []Entry{e}
		}
	case mode&fs.ModeSymlink != 0:
		var target string
		target, err = os.Readlink(root)
		entries = []Entry{{Path: ".", Kind: 'l', Target: target}}
	default:
		err = notRegularError(root, mode)
	}
	if err != nil {
		return nil, err
	}
	if err := hashFiles(root, entries, c, o.Workers, o.Read); err != nil {
		return nil, err
	}
	return entries, nil
}

// listTree reads the folders under root, one at a time, and returns their
// entries sorted by path. File sizes, modes and digests are left to
// hashFiles; links to folders followed (o.FollowLinks) are hashed here.
func listTree(root string, c *StatCache, o TreeOptions) ([]Entry, error) {
	exclude := o.Exclude
	realRoot := "" // root's real path, once a link is followed
	var entries []Entry
	pending := []string{"."}
	for len(pending) > 0 {
		dir := pending[len(pending)-1]
		pending = pending[:len(pending)-1]
		list, err := os.ReadDir(absPath(root, dir))
		if err != nil {
			return nil, fmt.Errorf("hash tree: %w", err)
		}
		for _, de := range list {
			rel := de.Name()
			if dir != "." {
				rel = dir + "/" + rel
			}
			if exclude != nil && exclude(rel) {
				continue
			}
			switch mode := de.Type(); {
			case mode.IsDir():
				entries = append(entries, Entry{Path: rel, Kind: 'd'})
				pending = append(pending, rel)
			case mode.IsRegular():
				entries = append(entries, Entry{Path: rel, Kind: 'f'})
			case mode&fs.ModeSymlink != 0 && o.FollowLinks:
				if realRoot == "" {
					var err error
					if realRoot, err = realFolder(root); err != nil {
						return nil, err
					}
				}
				e, err := followLink(absPath(root, rel), rel, absPath(realRoot, dir), c, o)
				if err != nil {
					return nil, err
				}
				entries = append(entries, e)
			case mode&fs.ModeSymlink != 0:
				target, err := os.Readlink(absPath(root, rel))
				if err != nil {
					return nil, fmt.Errorf("hash tree: %w", err)
				}
				entries = append(entries, Entry{Path: rel, Kind: 'l', Target: target})
			default:
				return nil, notRegularError(absPath(root, rel), mode)
			}
		}
	}
	slices.SortFunc(entries, func(a, b Entry) int { return strings.Compare(a.Path, b.Path) })
	return entries, nil
}

// absPath returns the file path of the entry rel under root.
func absPath(root, rel string) string {
	if rel == "." {
		return root
	}
	return root + string(filepath.Separator) + filepath.FromSlash(rel)
}

// hashFiles fills in the mode, size and digest of every file entry with a
// pool of workers, each taking the next unhashed file. Files of more than
// ChunkSize bytes that the cache does not vouch for are set aside and then
// hashed chunk by chunk, all their chunks shared out to the same number of
// workers, so that a few large files keep every worker busy. On failure it
// returns the error of the first failing file in path order.
func hashFiles(root string, entries []Entry, c *StatCache, workers int, read *atomic.Int64) error {
	var files []int
	for i, e := range entries {
		if e.Kind == 'f' || e.Kind == 'L' && e.To == 'f' {
			files = append(files, i)
		}
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	errs := make([]error, len(files))
	var next atomic.Int64
	var failed atomic.Bool
	var mu sync.Mutex
	var big []int // indexes into files
	work := func() {
		for !failed.Load() {
			i := int(next.Add(1) - 1)
			if i >= len(files) {
				return
			}
			isBig, err := hashEntry(root, &entries[files[i]], c, read)
			if errs[i] = err; err != nil {
				failed.Store(true)
			}
			if isBig {
				mu.Lock()
				big = append(big, i)
				mu.Unlock()
			}
		}
	}
	if n := min(workers, len(files)); n <= 1 {
		work() // one file, or one worker: no goroutine to start
	} else {
		var wg sync.WaitGroup
		for range n {
			wg.Go(work)
		}
		wg.Wait()
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	if len(big) == 0 {
		return nil
	}
	slices.Sort(big)
	bf := make([]*bigFile, len(big))
	for k, i := range big {
		e := entries[files[i]]
		abs := absPath(root, e.Path)
		bf[k] = &bigFile{path: abs, abs: abs, follow: e.Kind == 'L'}
	}
	digests, sizes, err := hashBig(bf, c, workers, read)
	if err != nil {
		return err
	}
	for k, i := range big {
		e := &entries[files[i]]
		e.Size, e.Digest = sizes[k], digests[k]
	}
	return nil
}

// hashEntry fills in one file entry, or followed link to a file; a file of
// more than ChunkSize bytes that the cache does not vouch for gets only its
// mode, and big is true: the caller hashes it.
func hashEntry(root string, e *Entry, c *StatCache, read *atomic.Int64) (big bool, err error) {
	abs := absPath(root, e.Path)
	follow := e.Kind == 'L'
	statOf := os.Lstat
	if follow {
		statOf = os.Stat // the file the link leads to: its stamp, not the link's
	}
	info, err := statOf(abs)
	if err != nil {
		return false, fmt.Errorf("hash tree: %w", err)
	}
	if !info.Mode().IsRegular() {
		return false, fmt.Errorf("hash %s: it stopped being a regular file while the tree was hashed; retry once whatever changes it has finished", abs)
	}
	e.Exec = info.Mode()&0o111 != 0
	if info.Size() > ChunkSize {
		if sig, ok := signatureOf(info); ok && c != nil {
			if d, ok := c.lookup(abs, sig); ok {
				e.Size, e.Digest = sig.size, d
				return false, nil
			}
		}
		return true, nil
	}
	d, size, err := fileDigest(abs, abs, info, c, follow, read)
	if err != nil {
		return false, err
	}
	e.Size = size
	e.Digest = d
	return false, nil
}
