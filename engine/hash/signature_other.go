//go:build !linux

package hash

import "io/fs"

// signatureOf reports no signature outside Linux: without the inode and
// ctime a stat signature cannot prove a file unchanged, so every file is read.
func signatureOf(info fs.FileInfo) (signature, bool) {
	return signature{}, false
}

// Root is a folder held open (on Linux); elsewhere none is opened.
type Root struct{}

// OpenRoot opens nothing outside Linux.
func OpenRoot(path string) (*Root, bool) { return nil, false }

// Close does nothing.
func (r *Root) Close() {}

// stampHolds holds for nothing outside Linux (see signatureOf).
func stampHolds(r *Root, path []byte, s Stamp, dir bool) bool { return false }
