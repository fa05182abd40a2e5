package hash

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
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

// StatPrintFollow is StatPrint of what TreeOptions.FollowLinks hashes: a
// symlink, the root included, adds its own stat and that of what it leads
// to, and a link to a folder everything below that folder too. So writing
// the file a link leads to, or pointing the link elsewhere, changes the
// print. A link that dangles or loops is an error, as it is to TreeWith.
func StatPrintFollow(path string) (print string, newest time.Time, err error) {
	p := &followPrinter{h: sha256.New()}
	info, err := os.Lstat(path)
	if err != nil {
		return "", time.Time{}, err
	}
	p.add(".", "", info)
	switch {
	case info.IsDir():
		var real string
		if real, err = realFolder(path); err == nil {
			err = p.folder(real, ".", nil)
		}
	case info.Mode()&fs.ModeSymlink != 0:
		var holder string
		if holder, err = realFolder(filepath.Dir(path)); err == nil {
			err = p.link(path, ".", holder, nil)
		}
	}
	if err != nil {
		return "", time.Time{}, err
	}
	return hex.EncodeToString(p.h.Sum(nil)), time.Unix(0, p.latest), nil
}

// followPrinter is the state of one StatPrintFollow.
type followPrinter struct {
	h      hash.Hash
	latest int64
}

// add writes one stat result; via is "->" for what a link at rel leads to.
func (p *followPrinter) add(rel, via string, info fs.FileInfo) {
	sig, _ := signatureOf(info)
	fmt.Fprintf(p.h, "%q%s %o %d %d %d %d %d\n", rel, via, info.Mode(), sig.size, sig.mtime, sig.ctime, sig.ino, sig.dev)
	p.latest = max(p.latest, sig.mtime, sig.ctime)
}

// folder prints what the folder whose real path is real holds; rel names
// it in the print, open are as in TreeOptions.
func (p *followPrinter) folder(real, rel string, open []string) error {
	list, err := os.ReadDir(real)
	if err != nil {
		return err
	}
	for _, de := range list {
		abs, r := filepath.Join(real, de.Name()), rel+"/"+de.Name()
		info, err := de.Info()
		if err != nil {
			return err
		}
		p.add(r, "", info)
		switch {
		case info.IsDir():
			err = p.folder(abs, r, open)
		case info.Mode()&fs.ModeSymlink != 0:
			err = p.link(abs, r, real, open)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// link prints what the link at abs leads to; holder is the real path of
// the folder that holds it.
func (p *followPrinter) link(abs, rel, holder string, open []string) error {
	target, info, err := followStat(abs)
	if err != nil {
		return err
	}
	p.add(rel, " ->", info)
	if !info.IsDir() {
		return nil
	}
	real, open, err := enter(abs, target, holder, open)
	if err != nil {
		return err
	}
	return p.folder(real, rel+" ->", open)
}
