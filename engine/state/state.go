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
// writes. It reads every version from 1 on: records of version 1 name store
// entries of the earlier store layout, which are treated as missing results
// (rebuilt, never used); records before version 4 hold their key lines as
// text (legacy.go).
const FormatVersion = 4

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
	// History holds, by key, the records of earlier results still in the
	// store that no node's record points at any more: what a revert
	// restores. A record leaves it when a node's record takes its key again
	// or kiln gc removes its run folder.
	History map[string]*Record
}

// newState returns an empty state with a fresh lineage.
func newState() *State {
	return &State{Version: FormatVersion, Lineage: newLineage(), Records: map[string]*Record{}, History: map[string]*Record{}}
}

// put makes r the record of r.Addr. The record it replaces goes to History
// when it held a result in another run folder under another key, so that
// result can still be restored.
func (s *State) put(r *Record) {
	old := s.Records[r.Addr]
	s.Records[r.Addr] = r
	if r.Good() && r.Key != "" {
		delete(s.History, r.Key)
	}
	if old != nil && old.Entry != r.Entry && old.Key != r.Key {
		s.retire(old)
	}
}

// remove forgets the record of addr, keeping its result in History; it
// reports whether there was one.
func (s *State) remove(addr string) bool {
	old, ok := s.Records[addr]
	if !ok {
		return false
	}
	delete(s.Records, addr)
	s.retire(old)
	return true
}

func (s *State) retire(old *Record) {
	if !old.Good() || old.Key == "" || !ValidEntry(old.Entry) {
		return
	}
	h := old.clone()
	h.Failure = nil
	s.History[old.Key] = h
}

// Referenced reports whether a record or a history record names entry as
// its result, or a failure keeps it to resume in.
func (s *State) Referenced(entry string) bool {
	for _, r := range s.Records {
		if r.Entry == entry || r.Failure != nil && r.Failure.Entry == entry {
			return true
		}
	}
	for _, r := range s.History {
		if r.Entry == entry {
			return true
		}
	}
	return false
}

// drop removes key's record from History; it reports whether there was one.
func (s *State) drop(key string) bool {
	if _, ok := s.History[key]; !ok {
		return false
	}
	delete(s.History, key)
	return true
}

func newLineage() string {
	var b [16]byte
	rand.Read(b[:]) // never fails on Linux (Go 1.24+ crashes rather than return an error)
	return hex.EncodeToString(b[:])
}

// Load reads the state in dir: the snapshot, then the journal of an apply
// that did not finish. A missing folder or snapshot gives an empty state with
// a fresh lineage; nothing is written. A damaged or too new snapshot, or a
// journal damaged before its last line, is a *CorruptError. A state folder
// that is a link to an unexpected place, or that holds a symbolic link at
// its top, is refused (checkFolder).
func Load(dir string) (*State, error) {
	if err := checkFolder(dir); err != nil {
		return nil, err
	}
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

// SortedHistory returns the records of History ordered by key.
func (s *State) SortedHistory() []*Record {
	recs := make([]*Record, 0, len(s.History))
	for _, r := range s.History {
		recs = append(recs, r)
	}
	slices.SortFunc(recs, func(a, b *Record) int { return strings.Compare(a.Key, b.Key) })
	return recs
}
