package hash

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The stat cache file is little-endian binary:
//
//	magic "kilnstat", version uint32, entry count uint32, total path bytes uint64
//	per entry, sorted by path: shared prefix length with the previous path
//	  (uvarint), suffix length (uvarint), suffix, dev, ino, size, mtime, ctime
//	  (uint64 each), digest (32 bytes)
//	CRC-32C of everything above (uint32)
//
// The checksum detects truncation and corruption; such a file loads empty.
const (
	statCacheMagic   = "kilnstat"
	statCacheVersion = 2 // 2: digests of files above ChunkSize are chunked
	headerSize       = len(statCacheMagic) + 4 + 4 + 8
	maxPathLen       = 4096 // PATH_MAX: no absolute path is longer
	trailerSize      = 4
	fixedEntrySize   = 5*8 + len(Digest{})
	minEntrySize     = 2 + fixedEntrySize // two one-byte uvarints
)

// LoadStatCache reads the cache saved at path. A missing, unreadable,
// corrupt or wrong-version file gives an empty cache: a miss, never an error.
func LoadStatCache(path string) *StatCache {
	c := NewStatCache()
	data, err := os.ReadFile(path)
	if err != nil {
		return c
	}
	if entries, ok := decodeStatCache(data); ok {
		c.sorted = entries
		c.size = len(entries)
	}
	return c
}

// Save writes the cache to path atomically (a temporary file in the same
// folder, fsync, rename). It does nothing when no entry changed since the
// cache was loaded or last saved.
func (c *StatCache) Save(path string) error {
	c.mu.Lock()
	if c.gen == c.savedGen {
		c.mu.Unlock()
		return nil
	}
	gen := c.gen
	entries := c.merge() // never modified in place afterwards: safe to read unlocked
	c.mu.Unlock()

	data := encodeStatCache(entries)
	if err := writeFileAtomic(path, data); err != nil {
		return fmt.Errorf("save stat cache: %w; check that the folder is writable (the cache only speeds up hashing: kiln is correct without it)", err)
	}
	c.mu.Lock()
	if c.savedGen < gen {
		c.savedGen = gen
	}
	c.mu.Unlock()
	return nil
}

// encodeStatCache returns the file content for entries sorted by path.
func encodeStatCache(entries []pathEntry) []byte {
	size := headerSize + trailerSize
	for _, e := range entries {
		size += len(e.path) + 2*binary.MaxVarintLen32 + fixedEntrySize
	}
	buf := make([]byte, 0, size)
	buf = append(buf, statCacheMagic...)
	buf = binary.LittleEndian.AppendUint32(buf, statCacheVersion)
	buf = binary.LittleEndian.AppendUint32(buf, uint32(len(entries)))
	pathBytes := 0
	for _, e := range entries {
		pathBytes += len(e.path)
	}
	buf = binary.LittleEndian.AppendUint64(buf, uint64(pathBytes))
	prev := ""
	for _, e := range entries {
		n := sharedPrefix(prev, e.path)
		buf = binary.AppendUvarint(buf, uint64(n))
		buf = binary.AppendUvarint(buf, uint64(len(e.path)-n))
		buf = append(buf, e.path[n:]...)
		for _, v := range [...]uint64{e.sig.dev, e.sig.ino, uint64(e.sig.size), uint64(e.sig.mtime), uint64(e.sig.ctime)} {
			buf = binary.LittleEndian.AppendUint64(buf, v)
		}
		buf = append(buf, e.digest[:]...)
		prev = e.path
	}
	return WithCRC(buf)
}

func sharedPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// decodeStatCache parses a cache file into entries sorted by path; ok is
// false for any defect, paths out of order included.
func decodeStatCache(data []byte) ([]pathEntry, bool) {
	if len(data) < headerSize+trailerSize {
		return nil, false
	}
	body, ok := CheckCRC(data)
	if !ok {
		return nil, false
	}
	if string(body[:len(statCacheMagic)]) != statCacheMagic ||
		binary.LittleEndian.Uint32(body[len(statCacheMagic):]) != statCacheVersion {
		return nil, false
	}
	count := int(binary.LittleEndian.Uint32(body[len(statCacheMagic)+4:]))
	pathBytes := binary.LittleEndian.Uint64(body[len(statCacheMagic)+8:])
	rest := body[headerSize:]
	if count > len(rest)/minEntrySize || pathBytes > uint64(count)*maxPathLen {
		return nil, false
	}
	entries := make([]pathEntry, 0, count)
	// All paths share one backing array: a Builder never changes bytes it
	// has written, so each path can be a substring of it.
	var paths strings.Builder
	paths.Grow(int(pathBytes))
	path := ""
	for range count {
		prefix, n1 := binary.Uvarint(rest)
		if n1 <= 0 || prefix > uint64(len(path)) {
			return nil, false
		}
		suffix, n2 := binary.Uvarint(rest[n1:])
		rest = rest[n1:]
		if n2 <= 0 || suffix > uint64(len(rest)-n2) || uint64(len(rest)-n2)-suffix < uint64(fixedEntrySize) {
			return nil, false
		}
		rest = rest[n2:]
		start := paths.Len()
		paths.WriteString(path[:prefix])
		paths.Write(rest[:suffix])
		next := paths.String()[start:]
		if len(entries) > 0 && next <= path {
			return nil, false
		}
		path = next
		rest = rest[suffix:]
		e := pathEntry{path: path}
		e.sig.dev = binary.LittleEndian.Uint64(rest[0:])
		e.sig.ino = binary.LittleEndian.Uint64(rest[8:])
		e.sig.size = int64(binary.LittleEndian.Uint64(rest[16:]))
		e.sig.mtime = int64(binary.LittleEndian.Uint64(rest[24:]))
		e.sig.ctime = int64(binary.LittleEndian.Uint64(rest[32:]))
		copy(e.digest[:], rest[40:fixedEntrySize])
		rest = rest[fixedEntrySize:]
		entries = append(entries, e)
	}
	if len(rest) != 0 || uint64(paths.Len()) != pathBytes {
		return nil, false
	}
	return entries, true
}

// writeFileAtomic replaces path with data so that a reader sees the old or
// the new content, never a mix, even after a crash.
func writeFileAtomic(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// The writer's process id is in the name, as in engine/state: the next
	// apply removes a file a killed kiln left here at once.
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-"+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	syncDir(dir)
	return nil
}

// syncDir makes a rename in dir durable. Some filesystems cannot fsync a
// folder; the rename has happened either way, so that error is dropped.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	d.Sync()
	d.Close()
}
