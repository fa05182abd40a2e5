package state

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// compact writes s as the snapshot with the given serial, keeping the
// previous snapshot as state.json.backup, and then removes the journal. Each
// step is atomic, and a crash between them leaves a state that Load reads
// correctly: the journal is replayed or, once the new snapshot is in place,
// recognised as compacted by its serial.
func compact(dir string, s *State, serial uint64) error {
	if err := backupSnapshot(dir); err != nil {
		return err
	}
	err := replaceFileWith(filepath.Join(dir, snapshotName), 0o644, true, func(f *os.File) error {
		head, err := writeSnapshot(f, s, serial)
		if err == nil {
			_, err = f.WriteAt(head, 0)
		}
		return err
	})
	if err != nil {
		return err
	}
	if err := os.Remove(filepath.Join(dir, journalName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("removing state journal: %w", err)
	}
	return syncDir(dir)
}

// backupSnapshot makes state.json.backup the current snapshot, by a hard
// link renamed into place (a copy where links are not supported), so there is
// always a complete state.json and a complete backup.
func backupSnapshot(dir string) error {
	snap := filepath.Join(dir, snapshotName)
	backup := filepath.Join(dir, backupName)
	tmp := filepath.Join(dir, "."+backupName+".tmp")
	if err := os.Remove(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("backing up state: %w", err)
	}
	err := os.Link(snap, tmp)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil // first snapshot: nothing to keep
	case err != nil:
		data, rerr := os.ReadFile(snap)
		if rerr != nil {
			return fmt.Errorf("backing up state: %w", rerr)
		}
		return WriteFileAtomic(backup, data, 0o644)
	}
	if err := os.Rename(tmp, backup); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("backing up state: %w", err)
	}
	return nil
}
