package hash

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// StatPrint is a fingerprint of what stat says about path and, for a
// folder, about everything below it: names, modes, sizes, inodes and change
// times. It reads no content, and it changes whenever a file is written,
// even back to its old content (the change time moves), so comparing two
// prints taken before and after a command ran tells whether anything under
// path was touched meanwhile — provided the change time moved, which a
// write within the same clock tick as the first print may not do: newest,
// the latest modification or change time seen, tells such racy files.
func StatPrint(path string) (print string, newest time.Time, err error) {
	h := sha256.New()
	var latest int64
	add := func(rel string, info fs.FileInfo) {
		sig, _ := signatureOf(info)
		fmt.Fprintf(h, "%q %o %d %d %d %d %d\n", rel, info.Mode(), sig.size, sig.mtime, sig.ctime, sig.ino, sig.dev)
		latest = max(latest, sig.mtime, sig.ctime)
	}
	info, err := os.Lstat(path)
	if err != nil {
		return "", time.Time{}, err
	}
	if !info.IsDir() {
		add(".", info)
		return hex.EncodeToString(h.Sum(nil)), time.Unix(0, latest), nil
	}
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(path, p)
		add(rel, info)
		return nil
	})
	if err != nil {
		return "", time.Time{}, err
	}
	return hex.EncodeToString(h.Sum(nil)), time.Unix(0, latest), nil
}
