package hash

import "os"

// A seal is the stat cache's rule applied to a whole listed folder at
// once: the stamps of its files, each taken when the stat cache vouched
// for the file's digest under it. While the folder's stamp is its
// listing's and every file's stamp is its seal's, the tree digests as it
// did when it was sealed — the digest the stat cache would give again —
// and checking that takes one lstat per folder and per file, with no
// lookup, no digest and no allocation.

// SealTree digests the folder at path from its listing l and the stat
// cache alone, and returns the stamps of its files (in l's order) that the
// digest rests on. ok is false when the listing does not vouch for the
// folder, a file is not a regular file, or the cache does not vouch for
// a file's digest under its current stamp (nothing is read or hashed).
func SealTree(path string, l *Listing, c *StatCache) (seal []Stamp, d Digest, ok bool) {
	info, err := os.Lstat(path)
	if err != nil || !info.IsDir() || l == nil || !l.vouches(info) || c == nil {
		return nil, Digest{}, false
	}
	root, err := cacheKey(path)
	if err != nil {
		return nil, Digest{}, false
	}
	entries := make([]Entry, len(l.Entries))
	copy(entries, l.Entries)
	seal = []Stamp{}
	for i := range entries {
		e := &entries[i]
		if e.Kind != 'f' {
			continue
		}
		abs := absPath(root, e.Path)
		info, err := os.Lstat(abs)
		if err != nil || !info.Mode().IsRegular() {
			return nil, Digest{}, false
		}
		sig, ok := signatureOf(info)
		if !ok {
			return nil, Digest{}, false
		}
		dg, ok := c.lookup(abs, sig)
		if !ok {
			return nil, Digest{}, false
		}
		e.Exec, e.Size, e.Digest = info.Mode()&0o111 != 0, sig.size, dg
		seal = append(seal, stampOf(sig))
	}
	return seal, EntriesDigest(entries), true
}

// SealHolds reports whether the folder at path still digests as when
// SealTree returned seal for it with the listing l: the folder's stamp is
// l's and each file's stamp is its seal's. A file whose mode changed has a
// new ctime, so its executable bit is covered too.
func SealHolds(path string, l *Listing, seal []Stamp) bool {
	return sealHolds(nil, []string{path}, l, seal)
}

// SealHoldsAt is SealHolds for the folder below the Root r whose path
// relative to it is the elements rel.
func SealHoldsAt(r *Root, l *Listing, seal []Stamp, rel ...string) bool {
	return sealHolds(r, rel, l, seal)
}

func sealHolds(r *Root, elems []string, l *Listing, seal []Stamp) bool {
	if l == nil || len(elems) == 0 {
		return false
	}
	// Paths are built in one buffer, NUL-terminated for the system call.
	var buf [512]byte
	p := append(buf[:0], elems[0]...)
	for _, e := range elems[1:] {
		p = append(append(p, os.PathSeparator), e...)
	}
	base := len(p) + 1
	p = append(p, 0)
	if !stampHolds(r, p, Stamp{Dev: l.Dev, Ino: l.Ino, Size: l.Size, Mtime: l.Mtime, Ctime: l.Ctime}, true) {
		return false
	}
	p[base-1] = os.PathSeparator
	k := 0
	for _, e := range l.Entries {
		if e.Kind != 'f' {
			continue
		}
		p = append(append(p[:base], e.Path...), 0)
		if k >= len(seal) || !stampHolds(r, p, seal[k], false) {
			return false
		}
		k++
	}
	return k == len(seal)
}

// SealFile returns the stamp of the regular file at path (not followed when
// it is a symlink) and the digest the stat cache vouches for under it; ok
// is false when the cache does not (nothing is read or hashed).
func SealFile(path string, c *StatCache) (Stamp, Digest, bool) {
	info, err := os.Lstat(path)
	if err != nil || !info.Mode().IsRegular() || c == nil {
		return Stamp{}, Digest{}, false
	}
	sig, ok := signatureOf(info)
	if !ok {
		return Stamp{}, Digest{}, false
	}
	abs, err := cacheKey(path)
	if err != nil {
		return Stamp{}, Digest{}, false
	}
	d, ok := c.lookup(abs, sig)
	return stampOf(sig), d, ok
}

// FileHolds reports whether the regular file at path still has the stamp
// SealFile returned, and so the digest it returned.
func FileHolds(path string, s Stamp) bool {
	return stampHolds(nil, append([]byte(path), 0), s, false)
}

func stampOf(sig signature) Stamp {
	return Stamp{Dev: sig.dev, Ino: sig.ino, Size: sig.size, Mtime: sig.mtime, Ctime: sig.ctime}
}
