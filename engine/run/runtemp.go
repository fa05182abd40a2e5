package run

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// A sealed run gets a private temporary folder, with its home folder
// inside, and the folder is gone for the run after it. Making and removing
// two folders for every run was a fifth of kiln's own CPU in a build of
// small nodes: each is an inode made and freed, and on ext4 without a
// journal every new inode is checked against the ones freed in the last
// minutes. So an apply keeps the folders its runs are done with (runTemps),
// emptied, and hands one to the next run: a run that wrote nothing there
// costs two folder reads instead. A folder is only handed out again once
// it is as makeRunTemp made it (an empty home, both 0700); anything that
// cannot be put back that way is removed, and the apply removes the ones
// it kept when it ends.

// runTemps are the private temporary folders an apply's runs are done
// with. A nil *runTemps makes a folder for every run and removes it after.
type runTemps struct {
	mu   sync.Mutex
	free []string
}

// get hands out an empty temporary folder with its home folder inside.
func (t *runTemps) get() (string, error) {
	if t != nil {
		t.mu.Lock()
		if n := len(t.free); n > 0 {
			tmp := t.free[n-1]
			t.free = t.free[:n-1]
			t.mu.Unlock()
			return tmp, nil
		}
		t.mu.Unlock()
	}
	return makeRunTemp()
}

// put takes back a folder get handed out, once its run has ended: emptied
// for the next run, or removed where it cannot be.
func (t *runTemps) put(tmp string) {
	if tmp == "" {
		return
	}
	if t == nil || !emptyRunTemp(tmp) {
		removeRunTemp(tmp)
		return
	}
	t.mu.Lock()
	t.free = append(t.free, tmp)
	t.mu.Unlock()
}

// close removes every folder kept.
func (t *runTemps) close() {
	if t == nil {
		return
	}
	t.mu.Lock()
	free := t.free
	t.free = nil
	t.mu.Unlock()
	for _, tmp := range free {
		removeRunTemp(tmp)
	}
}

// makeRunTemp makes a run's private temporary folder, with its home
// folder inside.
func makeRunTemp() (string, error) {
	tmp, err := os.MkdirTemp("", "kiln-run-")
	if err != nil {
		return "", fmt.Errorf("the run's temporary folder: %w", err)
	}
	if err := os.Mkdir(filepath.Join(tmp, "home"), 0o700); err != nil {
		_ = os.RemoveAll(tmp)
		return "", fmt.Errorf("the run's home folder: %w", err)
	}
	return tmp, nil
}

// emptyRunTemp puts tmp back as makeRunTemp made it: whatever the run left
// removed, home an empty folder, both 0700. false when it could not.
func emptyRunTemp(tmp string) bool {
	if !privateFolder(tmp) || !emptyFolder(tmp, "home") {
		return false
	}
	home := filepath.Join(tmp, "home")
	if !privateFolder(home) {
		_ = removeAllForced(home)
		if os.Mkdir(home, 0o700) != nil {
			return false
		}
	}
	return emptyFolder(home, "")
}

// privateFolder reports whether path is a folder (not a link to one) with
// mode 0700, which a run may have changed.
func privateFolder(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.IsDir() && fi.Mode().Perm() == 0o700
}

// emptyFolder removes every entry of dir but keep, read-only folders
// included, and reports whether none is left.
func emptyFolder(dir, keep string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if e.Name() != keep && removeAllForced(filepath.Join(dir, e.Name())) != nil {
			return false
		}
	}
	return true
}

// removeRunTemp removes a run's temporary folder, whatever the run left in
// it (read-only folders included).
func removeRunTemp(tmp string) {
	if tmp != "" {
		_ = removeAllForced(tmp)
	}
}

// removeAllForced removes path and all it holds, first making every folder
// in it writable: a run may leave a folder it made read-only.
func removeAllForced(path string) error {
	_ = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o755)
		}
		return nil
	})
	return os.RemoveAll(path)
}
