package state

import (
	"errors"
	"testing"
)

// FuzzReplayJournal: the journal decoder never panics on any bytes (a torn,
// damaged or hostile journal), refuses what it cannot trust with a
// *CorruptError, and every record it accepts has an address; a line it
// decodes encodes back to a line that decodes to the same entry.
func FuzzReplayJournal(f *testing.F) {
	put, _ := encodeJournalLine(journalEntry{Op: opPut, Record: &Record{Addr: "exec.a", Key: "k", Digest: "d"}})
	begin, _ := encodeJournalLine(journalEntry{Op: opBegin, Version: FormatVersion, Lineage: "l", Serial: 0})
	del, _ := encodeJournalLine(journalEntry{Op: opDelete, Addr: "exec.a"})
	f.Add(append(append(append([]byte{}, begin...), put...), del...), false)
	f.Add(append(append([]byte{}, begin...), put[:len(put)/2]...), true)
	f.Add([]byte("00000000 {}\n"), false)
	f.Fuzz(func(t *testing.T, data []byte, snapshot bool) {
		s := newState()
		s.Lineage = "l"
		_, err := replayJournal("state.journal", data, s, snapshot)
		var corrupt *CorruptError
		if err != nil && !errors.As(err, &corrupt) {
			t.Fatalf("error %v is not a *CorruptError", err)
		}
		for a, r := range s.Records {
			if r == nil || r.Addr != a || a == "" {
				t.Fatalf("record under %q: %+v", a, r)
			}
		}
		entries, err := parseJournal("state.journal", data)
		if err != nil {
			return
		}
		for _, e := range entries {
			line, err := encodeJournalLine(e)
			if err != nil {
				t.Fatalf("encoding a decoded entry: %v", err)
			}
			back, err := decodeJournalLine(line[:len(line)-1])
			if err != nil {
				t.Fatalf("a re-encoded entry does not decode: %v", err)
			}
			if back.Op != e.Op || back.Addr != e.Addr || (back.Record == nil) != (e.Record == nil) {
				t.Fatalf("round trip: %+v → %+v", e, back)
			}
		}
	})
}
