package hash

import (
	"crypto/sha256"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// readAttempts bounds how often a file that changes while it is read is
// read again before hashing gives up.
const readAttempts = 3

// fileHasher is a SHA-256 state and a read buffer, reused across files.
type fileHasher struct {
	sha hash.Hash
	buf []byte
}

var fileHashers = sync.Pool{New: func() any {
	return &fileHasher{sha: sha256.New(), buf: make([]byte, 256<<10)}
}}

// File returns the content digest of one regular file (its SHA-256, or for
// a file of more than ChunkSize bytes its chunked digest, see the package
// doc), from the cache when its (device, inode, size, mtime ns, ctime ns)
// signature is unchanged. A symlink to a regular file is followed. A nil
// cache hashes always.
func File(path string, c *StatCache) (Digest, error) {
	return FileWith(path, c, nil)
}

// FileWith is File that adds the bytes it reads, if it reads the file, to
// read (when set).
func FileWith(path string, c *StatCache, read *atomic.Int64) (Digest, error) {
	info, err := os.Stat(path)
	if err != nil {
		return Digest{}, fmt.Errorf("hash file: %w", err)
	}
	return StatedFileWith(path, info, c, read)
}

// StatedFileWith is FileWith for the file at path whose os.Stat (or, for a
// file that is not a symlink, os.Lstat) is info, which the caller has
// already taken.
func StatedFileWith(path string, info fs.FileInfo, c *StatCache, read *atomic.Int64) (Digest, error) {
	if !info.Mode().IsRegular() {
		return Digest{}, notRegularError(path, info.Mode())
	}
	abs := path
	if c != nil {
		var err error
		if abs, err = cacheKey(path); err != nil {
			return Digest{}, fmt.Errorf("hash file %s: %w", path, err)
		}
	}
	d, _, err := fileDigest(path, abs, info, c, true, read)
	return d, err
}

// fileDigest returns the digest and size of the regular file at path, whose
// stat result is info and whose cache key is abs. A file that changes while
// it is read is read again, and only a file that held still is cached. The
// bytes read are added to read, when set.
func fileDigest(path, abs string, info fs.FileInfo, c *StatCache, follow bool, read *atomic.Int64) (Digest, int64, error) {
	if sig, ok := signatureOf(info); ok && c != nil {
		if d, ok := c.lookup(abs, sig); ok {
			return d, sig.size, nil
		}
	}
	if info.Size() > ChunkSize {
		ds, sizes, err := hashBig([]*bigFile{{path: path, abs: abs, follow: follow}}, c, 0, read)
		if err != nil {
			return Digest{}, 0, err
		}
		return ds[0], sizes[0], nil
	}
	for range readAttempts {
		start := time.Now()
		d, n, before, after, err := readDigest(path, follow)
		if read != nil {
			read.Add(n)
		}
		if err != nil {
			return Digest{}, 0, err
		}
		if n != before.Size() || !sameStat(before, after) {
			continue
		}
		if sig, ok := signatureOf(before); ok && c != nil {
			c.store(abs, sig, d, start)
		}
		return d, n, nil
	}
	return Digest{}, 0, fmt.Errorf("hash %s: the file changed each of the %d times it was read; stop whatever is writing to it and retry", path, readAttempts)
}

// readDigest streams the file at path through Content and returns the
// digest, the bytes read and the file's stat results before and after
// reading. The digest is valid only when the bytes read are the size before.
func readDigest(path string, follow bool) (d Digest, n int64, before, after fs.FileInfo, err error) {
	flags := os.O_RDONLY | syscall.O_NONBLOCK // a fifo swapped in must not block the open
	if !follow {
		flags |= syscall.O_NOFOLLOW
	}
	f, err := os.OpenFile(path, flags, 0)
	if err != nil {
		return d, 0, nil, nil, fmt.Errorf("hash file: %w", err)
	}
	defer f.Close()
	if before, err = f.Stat(); err != nil {
		return d, 0, nil, nil, fmt.Errorf("hash file: %w", err)
	}
	if !before.Mode().IsRegular() {
		return d, 0, nil, nil, notRegularError(path, before.Mode())
	}
	h := fileHashers.Get().(*fileHasher)
	defer fileHashers.Put(h)
	content := newContent(h.sha, before.Size())
	// Hide os.File's WriteTo so that CopyBuffer uses the pooled buffer.
	if n, err = io.CopyBuffer(content, struct{ io.Reader }{f}, h.buf); err != nil {
		return d, 0, nil, nil, fmt.Errorf("hash file: %w", err)
	}
	d, _ = content.Sum() // checked by the caller: n must be the size
	if after, err = f.Stat(); err != nil {
		return d, 0, nil, nil, fmt.Errorf("hash file: %w", err)
	}
	return d, n, before, after, nil
}

// sameStat reports whether two stat results of one open file show no change.
func sameStat(a, b fs.FileInfo) bool {
	sa, okA := signatureOf(a)
	sb, okB := signatureOf(b)
	if okA && okB {
		return sa == sb
	}
	return a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// NotRegularError says that Path is of a kind kiln does not hash: a
// device, a FIFO or a socket (or, where a regular file was expected, a
// folder or a symlink).
type NotRegularError struct {
	Path string
	Mode fs.FileMode
	// Link is the text of the symlink at Path when Mode is that of what it
	// leads to (TreeOptions.FollowLinks); "" otherwise.
	Link string
}

// What names the kind of file, with its article: "a FIFO".
func (e *NotRegularError) What() string {
	switch m := e.Mode; {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (fifo)"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

func (e *NotRegularError) Error() string {
	switch {
	case e.Mode.IsDir() && e.Link == "":
		return fmt.Sprintf("hash file %s: is a folder, not a regular file; hash it as a tree", e.Path)
	case e.Link != "":
		return fmt.Sprintf("hash %s: is a symlink to %s, which is %s; kiln follows symlinks among inputs only to regular files and folders: remove it, or point it at a file or a folder", e.Path, e.Link, e.What())
	}
	return fmt.Sprintf("hash %s: is %s; kiln hashes only regular files, folders and symlinks: remove it or exclude it from the outputs", e.Path, e.What())
}

// notRegularError says that path is of a kind kiln does not hash.
func notRegularError(path string, mode fs.FileMode) error {
	return &NotRegularError{Path: path, Mode: mode}
}
