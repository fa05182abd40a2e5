package state

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// crashedApply commits recs, waits until they are durable and then drops the
// Writer without Close, as if kiln were killed. It returns the state as the
// apply saw it.
func crashedApply(t *testing.T, dir string, recs ...*Record) *State {
	t.Helper()
	s := mustLoad(t, dir)
	w, err := OpenWriter(dir, s)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Commit(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	w.file.Close() // the kernel would close it; the flusher goroutine stays idle
	return s
}

func TestCrashReplay(t *testing.T) {
	dir := t.TempDir()
	before := apply(t, dir, sampleRecord(1))
	crashed := crashedApply(t, dir, sampleRecord(2), sampleRecord(3))

	got := mustLoad(t, dir)
	if diff := cmp.Diff(crashed.Records, got.Records); diff != "" {
		t.Errorf("records after replay (-committed +loaded):\n%s", diff)
	}
	if got.Serial != 2 || got.Lineage != before.Lineage {
		t.Errorf("after replay: serial %d lineage %q, want 2 and %q", got.Serial, got.Lineage, before.Lineage)
	}

	// The next apply compacts the journal first and carries on from it.
	next := apply(t, dir, sampleRecord(4))
	if next.Serial != 3 || len(next.Records) != 4 {
		t.Errorf("apply after a crash: serial %d, %d records; want 3 and 4", next.Serial, len(next.Records))
	}
	if diff := cmp.Diff(next.Records, mustLoad(t, dir).Records); diff != "" {
		t.Errorf("records after recovery (-applied +loaded):\n%s", diff)
	}
}

func TestCrashOnFirstApply(t *testing.T) {
	dir := t.TempDir()
	crashed := crashedApply(t, dir, sampleRecord(1))
	got := mustLoad(t, dir)
	if got.Lineage != crashed.Lineage || got.Serial != 1 || len(got.Records) != 1 {
		t.Errorf("replay without a snapshot: lineage %q serial %d records %d; want %q, 1, 1", got.Lineage, got.Serial, len(got.Records), crashed.Lineage)
	}
	if next := apply(t, dir, sampleRecord(2)); next.Lineage != crashed.Lineage || next.Serial != 2 {
		t.Errorf("apply after the crash: lineage %q serial %d; want %q and 2", next.Lineage, next.Serial, crashed.Lineage)
	}
}

func TestTornLastLineIgnored(t *testing.T) {
	for name, tail := range map[string]func(line []byte) []byte{
		"partial line":        func(line []byte) []byte { return line[:len(line)/2] },
		"bad checksum":        func(line []byte) []byte { return append([]byte("00000000"), line[8:]...) },
		"zeros with newline":  func(line []byte) []byte { return append(make([]byte, 40), '\n') },
		"only a few bytes":    func(line []byte) []byte { return []byte("3f") },
		"valid JSON, no crc":  func(line []byte) []byte { return line[9:] },
		"flipped body byte":   func(line []byte) []byte { c := bytes.Clone(line); c[20] ^= 1; return c },
		"duplicate, complete": func(line []byte) []byte { return line }, // replayed twice: harmless
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			crashed := crashedApply(t, dir, sampleRecord(1), sampleRecord(2))
			line, err := encodeJournalLine(journalEntry{Op: opPut, Record: sampleRecord(9)})
			if err != nil {
				t.Fatal(err)
			}
			appendFile(t, filepath.Join(dir, journalName), tail(line))
			got := mustLoad(t, dir)
			want := crashed.Records
			if name == "duplicate, complete" {
				want[sampleRecord(9).Addr] = sampleRecord(9)
			}
			if diff := cmp.Diff(addrsOf(want), addrs(got)); diff != "" {
				t.Errorf("records (-want +got):\n%s", diff)
			}
		})
	}
}

func addrsOf(recs map[string]*Record) []string {
	return addrs(&State{Records: recs})
}

func appendFile(t *testing.T, path string, data []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
}

func TestGarbledMiddleLineIsAnError(t *testing.T) {
	dir := t.TempDir()
	crashedApply(t, dir, sampleRecord(1), sampleRecord(2), sampleRecord(3))
	path := filepath.Join(dir, journalName)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	lines[2] = bytes.Replace(lines[2], []byte(`"exec"`), []byte(`"EXEC"`), 1) // a put in the middle
	garbled := bytes.Join(lines, nil)
	if err := os.WriteFile(path, garbled, 0o644); err != nil {
		t.Fatal(err)
	}

	_, err = Load(dir)
	var ce *CorruptError
	if !errors.As(err, &ce) || ce.Path != path || !strings.Contains(err.Error(), "line 3") {
		t.Fatalf("Load = %v, want a *CorruptError for line 3 of %s", err, path)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, garbled) {
		t.Error("Load changed the damaged journal")
	}
	if _, err := OpenWriter(dir, &State{Records: map[string]*Record{}}); !errors.As(err, &ce) {
		t.Errorf("OpenWriter on a damaged journal = %v, want *CorruptError", err)
	}
}

func TestJournalAlreadyCompacted(t *testing.T) {
	// A crash after the new snapshot is in place but before the journal is
	// removed: the journal must not be applied (or counted) again.
	dir := t.TempDir()
	apply(t, dir, sampleRecord(1))
	s := mustLoad(t, dir)
	w, err := OpenWriter(dir, s)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(sampleRecord(2)); err != nil {
		t.Fatal(err)
	}
	if err := w.Forget(sampleRecord(1).Addr); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	journal, err := os.ReadFile(filepath.Join(dir, journalName))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, journalName), journal, 0o644); err != nil {
		t.Fatal(err)
	}
	got := mustLoad(t, dir)
	if got.Serial != 2 {
		t.Errorf("serial %d, want 2", got.Serial)
	}
	if diff := cmp.Diff([]string{sampleRecord(2).Addr}, addrs(got)); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	next := apply(t, dir, sampleRecord(3))
	if diff := cmp.Diff([]string{sampleRecord(2).Addr, sampleRecord(3).Addr}, addrs(mustLoad(t, dir))); diff != "" || next.Serial != 3 {
		t.Errorf("next apply: serial %d (want 3), records (-want +got):\n%s", next.Serial, diff)
	}
}

func TestJournalMismatch(t *testing.T) {
	for name, begin := range map[string]journalEntry{
		"other lineage":         {Op: opBegin, Version: 1, Lineage: "someone-else", Serial: 1},
		"ahead of the snapshot": {Op: opBegin, Version: 1, Lineage: "", Serial: 5},
		"newer format":          {Op: opBegin, Version: FormatVersion + 1, Lineage: "", Serial: 1},
		"no begin":              {Op: opDelete, Addr: "exec.a"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			s := apply(t, dir, sampleRecord(1))
			if begin.Op == opBegin && begin.Lineage == "" {
				begin.Lineage = s.Lineage
			}
			var data []byte
			for _, e := range []journalEntry{begin, {Op: opDelete, Addr: sampleRecord(1).Addr}} {
				line, err := encodeJournalLine(e)
				if err != nil {
					t.Fatal(err)
				}
				data = append(data, line...)
			}
			if err := os.WriteFile(filepath.Join(dir, journalName), data, 0o644); err != nil {
				t.Fatal(err)
			}
			var ce *CorruptError
			if _, err := Load(dir); !errors.As(err, &ce) {
				t.Errorf("Load = %v, want *CorruptError", err)
			}
		})
	}
}

func TestLoadBesideApply(t *testing.T) {
	// kiln plan may read the state while an apply commits and compacts it.
	dir := t.TempDir()
	apply(t, dir, tinyRecord(0))
	done := make(chan struct{})
	errs := make(chan error, 1)
	go func() {
		defer close(errs)
		var last uint64
		for {
			select {
			case <-done:
				return
			default:
			}
			s, err := Load(dir)
			if err == nil && s.Serial < last {
				err = fmt.Errorf("serial went back from %d to %d", last, s.Serial)
			}
			if err != nil {
				errs <- err
				return
			}
			last = s.Serial
		}
	}()
	for i := 1; i <= 10; i++ {
		recs := make([]*Record, 20)
		for j := range recs {
			recs[j] = tinyRecord(i*100 + j)
		}
		apply(t, dir, recs...)
	}
	close(done)
	if err := <-errs; err != nil {
		t.Errorf("Load beside an apply: %v", err)
	}
}
