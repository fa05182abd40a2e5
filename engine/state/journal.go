package state

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// A journal is a sequence of lines "<crc32c of JSON, 8 hex digits> <JSON>\n".
// The first entry is a "begin" naming the lineage and serial of the snapshot
// the journal extends; then "put", "delete" and "drop" (a history record
// whose run folder gc removed) entries in commit order. Each entry sets a
// final value, so replaying a journal twice is harmless.
type journalEntry struct {
	Op      string  `json:"op"` // opBegin, opPut, opDelete
	Version int     `json:"version,omitempty"`
	Lineage string  `json:"lineage,omitempty"`
	Serial  uint64  `json:"serial,omitempty"`
	Record  *Record `json:"record,omitempty"`
	Addr    string  `json:"addr,omitempty"`
	Key     string  `json:"key,omitempty"`
}

const (
	opBegin  = "begin"
	opPut    = "put"
	opDelete = "delete"
	opDrop   = "drop"
)

func encodeJournalLine(e journalEntry) ([]byte, error) {
	line, err := MarshalLine(e)
	if err != nil {
		return nil, fmt.Errorf("encoding journal entry: %w", err)
	}
	return line, nil
}

// decodeJournalLine checks a line's checksum and decodes it.
func decodeJournalLine(line []byte) (journalEntry, error) {
	var e journalEntry
	if err := UnmarshalLine(line, &e); err != nil {
		return e, err
	}
	switch {
	case e.Op == opPut && (e.Record == nil || e.Record.Addr == ""):
		return e, errors.New("put without a record address")
	case e.Op == opDelete && e.Addr == "":
		return e, errors.New("delete without an address")
	case e.Op == opDrop && e.Key == "":
		return e, errors.New("drop without a key")
	case e.Op != opBegin && e.Op != opPut && e.Op != opDelete && e.Op != opDrop:
		return e, fmt.Errorf("unknown operation %q", e.Op)
	}
	return e, nil
}

// readJournal returns the content of the journal at path; nil if there is
// none.
func readJournal(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading state journal: %w", err)
	}
	return data, nil
}

// parseJournal returns the valid entries of the journal data read from path.
// An invalid last line is a write torn by a crash and is dropped; an invalid
// line before it is a *CorruptError.
func parseJournal(path string, data []byte) ([]journalEntry, error) {
	lines := bytes.Split(data, []byte{'\n'})
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1] // the file ends with a complete line
	}
	entries := make([]journalEntry, 0, len(lines))
	for i, line := range lines {
		e, err := decodeJournalLine(line)
		if err != nil {
			if i == len(lines)-1 {
				break // torn by a crash while it was being written
			}
			return nil, journalCorrupt(path, fmt.Sprintf("line %d is damaged", i+1), err)
		}
		entries = append(entries, e)
	}
	return entries, nil
}

func journalCorrupt(path, problem string, err error) error {
	return &CorruptError{Path: path, Problem: problem, Err: err,
		Advice: "move it aside to drop what the interrupted apply recorded (its outputs stay in the store; the next apply rebuilds or restores them)"}
}

// replayJournal applies the journal data read from path to s, which was
// loaded from the snapshot (snapshotExists) or is empty. It reports whether
// any entry was applied; then s.Serial is one more than the snapshot's, as
// Close would have made it.
func replayJournal(path string, data []byte, s *State, snapshotExists bool) (bool, error) {
	entries, err := parseJournal(path, data)
	if err != nil || len(entries) == 0 {
		return false, err
	}
	begin := entries[0]
	switch {
	case begin.Op != opBegin:
		return false, journalCorrupt(path, "it does not start with a begin entry", nil)
	case begin.Version > FormatVersion:
		return false, &CorruptError{Path: path,
			Problem: fmt.Sprintf("written by a newer kiln (format version %d; this kiln reads version %d)", begin.Version, FormatVersion),
			Advice:  "use a newer kiln"}
	case !snapshotExists && begin.Serial != 0:
		return false, journalCorrupt(path, fmt.Sprintf("it extends serial %d but state.json is missing", begin.Serial), nil)
	case snapshotExists && begin.Lineage != s.Lineage:
		return false, journalCorrupt(path, fmt.Sprintf("it belongs to another state (lineage %s, state.json has %s)", begin.Lineage, s.Lineage), nil)
	case begin.Serial < s.Serial:
		return false, nil // compacted into the snapshot already; only its removal was lost
	case begin.Serial > s.Serial:
		return false, journalCorrupt(path, fmt.Sprintf("it extends serial %d but state.json has serial %d (was state.json restored from a backup?)", begin.Serial, s.Serial), nil)
	}
	if !snapshotExists {
		s.Lineage = begin.Lineage
	}
	applied := false
	for _, e := range entries[1:] {
		switch e.Op {
		case opPut:
			s.put(e.Record)
		case opDelete:
			s.remove(e.Addr)
		case opDrop:
			s.drop(e.Key)
		default:
			continue
		}
		applied = true
	}
	if applied {
		s.Serial++
	}
	return applied, nil
}
