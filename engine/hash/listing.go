package hash

import (
	"io/fs"
	"os"
	"time"
)

// Listing is a folder's entries together with the stat signature of the
// folder they were read under. A folder gets a new mtime and ctime whenever
// an entry is added, removed, renamed or replaced (a symlink's target or an
// entry's kind cannot change in place), so while the folder's signature is
// the one recorded, and that signature was not racy when the listing was
// read, the entries are the recorded ones and need not be read again. Their
// content is not vouched for: every file is still stat'ed (and hashed when
// the stat cache does not vouch for it), so an edit inside the folder is
// noticed as it is without a listing.
//
// Only folders without subfolders are listed: a subfolder's own entries
// would need a signature of their own.
type Listing struct {
	Dev, Ino           uint64
	Size, Mtime, Ctime int64
	Entries            []Entry // as listTree returns them: no size, mode or digest
}

// ListFolder reads the entries of the folder at path for a later TreeWith;
// false when path is not a folder, holds a subfolder, or changed too
// recently for its signature to be trusted.
//
// The signature is taken before the entries are read, and only a
// signature older than the racy window is kept: any change to the
// folder's entries after it was taken, while they are read or later, gives
// the folder a ctime after the listing started, so the listing never
// vouches for the folder again. A second stat after the read would tell
// nothing more.
func ListFolder(path string) (*Listing, bool) {
	return listFolder(path, time.Now())
}

// listFolder is ListFolder for a listing started at start.
func listFolder(path string, start time.Time) (*Listing, bool) {
	before, err := os.Lstat(path)
	if err != nil || !before.IsDir() {
		return nil, false
	}
	if sig, ok := signatureOf(before); !ok || sig.racy(start) {
		return nil, false
	}
	entries, err := listTree(path, nil, TreeOptions{})
	if err != nil {
		return nil, false
	}
	return listingOf(before, entries, start)
}

// listingOf is the Listing of a folder whose Lstat before its entries were
// read, starting at start, was before; false when it holds a subfolder or
// changed too recently (see ListFolder).
func listingOf(before fs.FileInfo, entries []Entry, start time.Time) (*Listing, bool) {
	sig, ok := signatureOf(before)
	if !ok || sig.racy(start) {
		return nil, false
	}
	for _, e := range entries {
		if e.Kind == 'd' {
			return nil, false
		}
	}
	return &Listing{Dev: sig.dev, Ino: sig.ino, Size: sig.size, Mtime: sig.mtime, Ctime: sig.ctime, Entries: entries}, true
}

// vouches reports whether l still lists the folder whose Lstat is info.
func (l *Listing) vouches(info fs.FileInfo) bool {
	sig, ok := signatureOf(info)
	return ok && l != nil && sig == signature{dev: l.Dev, ino: l.Ino, size: l.Size, mtime: l.Mtime, ctime: l.Ctime}
}

// Stamp is the stat signature of a folder: while it is unchanged, so are
// the folder's entries — their names, kinds and, for symlinks, targets,
// since a symlink cannot be changed in place, only replaced — as they were
// when the stamp was taken, provided it was not racy then (Racy). It says
// nothing of the entries' content.
type Stamp struct {
	Dev, Ino           uint64
	Size, Mtime, Ctime int64
}

// StampOf returns the stamp of the folder at path (not followed when it is
// a symlink); false when it is not a folder or its stat says too little.
func StampOf(path string) (Stamp, bool) {
	info, err := os.Lstat(path)
	if err != nil || !info.IsDir() {
		return Stamp{}, false
	}
	sig, ok := signatureOf(info)
	if !ok {
		return Stamp{}, false
	}
	return Stamp{Dev: sig.dev, Ino: sig.ino, Size: sig.size, Mtime: sig.mtime, Ctime: sig.ctime}, true
}

// FileStamp returns the stamp of the regular file at path (not followed
// when it is a symlink); false when it is not one.
func FileStamp(path string) (Stamp, bool) {
	info, err := os.Lstat(path)
	if err != nil || !info.Mode().IsRegular() {
		return Stamp{}, false
	}
	sig, ok := signatureOf(info)
	return stampOf(sig), ok
}

// Racy reports whether the folder may have changed, or may still change,
// without changing this stamp, for entries read starting at start: its
// mtime or ctime lies within the racy window before start (or after it).
// Only a stamp taken before the entries were read, that is not racy and
// is the same after they were read, stands for them.
func (s Stamp) Racy(start time.Time) bool {
	return signature{mtime: s.Mtime, ctime: s.Ctime}.racy(start)
}
