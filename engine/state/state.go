package state

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// FormatVersion is the version of the snapshot and journal format this kiln
// reads and writes.
const FormatVersion = 1

const (
	snapshotName = "state.json"
	backupName   = "state.json.backup"
	journalName  = "state.journal"
)

// State is every record of one state folder, with the identity of the state
// (Lineage) and its revision (Serial), which a saved plan checks before apply.
type State struct {
	Version int                // file format version, FormatVersion
	Lineage string             // random id made when the state is first created
	Serial  uint64             // bumped by every apply that commits anything
	Records map[string]*Record // by Addr
}

// newState returns an empty state with a fresh lineage.
func newState() *State {
	return &State{Version: FormatVersion, Lineage: newLineage(), Records: map[string]*Record{}}
}

func newLineage() string {
	var b [16]byte
	rand.Read(b[:]) // never fails on Linux (Go 1.24+ crashes rather than return an error)
	return hex.EncodeToString(b[:])
}

// Load reads the state in dir: the snapshot, then the journal of an apply
// that did not finish. A missing folder or snapshot gives an empty state with
// a fresh lineage; nothing is written. A damaged or too new snapshot, or a
// journal damaged before its last line, is a *CorruptError.
func Load(dir string) (*State, error) {
	s, _, err := load(dir)
	return s, err
}

// loaded says what load found on disk.
type loaded struct {
	snapshot bool // state.json exists
	replayed bool // a journal added records to it
}

// load is Load that also reports what was on disk.
//
// The journal is read before the snapshot: an apply writes the new snapshot
// before it starts the next journal, so a reader running beside an apply
// (kiln plan) never pairs a journal with a snapshot older than the one the
// journal extends.
func load(dir string) (*State, loaded, error) {
	var found loaded
	journalPath := filepath.Join(dir, journalName)
	journal, err := readJournal(journalPath)
	if err != nil {
		return nil, found, err
	}
	snapPath := filepath.Join(dir, snapshotName)
	data, err := os.ReadFile(snapPath)
	var s *State
	switch {
	case errors.Is(err, fs.ErrNotExist):
		s = newState()
	case err != nil:
		return nil, found, fmt.Errorf("reading state: %w", err)
	default:
		found.snapshot = true
		if s, err = decodeSnapshot(snapPath, data); err != nil {
			return nil, found, err
		}
	}
	found.replayed, err = replayJournal(journalPath, journal, s, found.snapshot)
	if err != nil {
		return nil, found, err
	}
	return s, found, nil
}

// Sorted returns the records ordered by address.
func (s *State) Sorted() []*Record {
	recs := make([]*Record, 0, len(s.Records))
	for _, r := range s.Records {
		recs = append(recs, r)
	}
	slices.SortFunc(recs, func(a, b *Record) int { return strings.Compare(a.Addr, b.Addr) })
	return recs
}
