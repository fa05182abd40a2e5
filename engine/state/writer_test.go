package state

import (
	"errors"
	"fmt"
	"sync"
	"testing"
)

func TestGroupCommit(t *testing.T) {
	const goroutines, perGoroutine = 8, 1250
	dir := t.TempDir()
	s := mustLoad(t, dir)
	w, err := OpenWriter(dir, s)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range perGoroutine {
				r := tinyRecord(g*perGoroutine + i)
				if err := w.Commit(r); err != nil {
					t.Error(err)
					return
				}
				if i%500 == 0 {
					if err := w.Flush(); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
	wg.Wait()
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	commits := goroutines * perGoroutine
	batches := w.batches.Load()
	t.Logf("%d commits written in %d write+fsync batches", commits, batches)
	if batches >= int64(commits/10) {
		t.Errorf("%d batches for %d commits: commits are not grouped", batches, commits)
	}

	// Everything is durable before Close: a crash now loses nothing.
	crashed := mustLoad(t, dir)
	if len(crashed.Records) != commits {
		t.Errorf("replay after Flush found %d records, want %d", len(crashed.Records), commits)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got := mustLoad(t, dir)
	if len(got.Records) != commits || got.Serial != 1 {
		t.Errorf("after Close: %d records, serial %d; want %d and 1", len(got.Records), got.Serial, commits)
	}
	for i := range commits {
		if want := tinyRecord(i); got.Records[want.Addr] == nil || got.Records[want.Addr].Key != want.Key {
			t.Fatalf("record %d missing or wrong after Load", i)
		}
	}
}

// tinyRecord is a small record, so tests of many commits are not I/O bound.
func tinyRecord(i int) *Record {
	return &Record{Addr: fmt.Sprintf("exec.n[%d]", i), Kind: "exec", Key: fmt.Sprintf("%x", i*7919), Digest: "d"}
}

func TestSameAddressLastCommitWins(t *testing.T) {
	dir := t.TempDir()
	s := mustLoad(t, dir)
	w, err := OpenWriter(dir, s)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		r := sampleRecord(1)
		r.Digest = fmt.Sprint(i)
		if err := w.Commit(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if r, ok := w.Record(sampleRecord(1).Addr); !ok || r.Digest != "99" {
		t.Errorf("Writer.Record = %v, %v; want the last committed", r, ok)
	}
	if got := mustLoad(t, dir).Records[sampleRecord(1).Addr].Digest; got != "99" {
		t.Errorf("replayed digest %q, want the last committed, 99", got)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := mustLoad(t, dir).Records[sampleRecord(1).Addr].Digest; got != "99" {
		t.Errorf("snapshot digest %q, want the last committed, 99", got)
	}
}

func TestWriterAfterClose(t *testing.T) {
	dir := t.TempDir()
	w, err := OpenWriter(dir, mustLoad(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close = %v, want nil", err)
	}
	if err := w.Commit(sampleRecord(1)); !errors.Is(err, ErrWriterClosed) {
		t.Errorf("Commit after Close = %v, want ErrWriterClosed", err)
	}
	if err := w.Commit(&Record{}); err == nil {
		t.Error("Commit of a record without an address succeeded")
	}
}

func TestJournalWriteFailure(t *testing.T) {
	// When the journal cannot be written, Commit and Flush report it and no
	// later line is appended after a possibly torn one; Close still saves
	// the whole state in the snapshot.
	dir := t.TempDir()
	s := mustLoad(t, dir)
	w, err := OpenWriter(dir, s)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(sampleRecord(1)); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	w.file.Close() // every later write fails
	if err := w.Commit(sampleRecord(2)); err != nil {
		t.Fatal(err) // not yet written: Commit does not wait for the disk
	}
	if err := w.Flush(); err == nil {
		t.Fatal("Flush after a failed write = nil, want the write error")
	}
	if err := w.Commit(sampleRecord(3)); err == nil {
		t.Error("Commit after a failed write = nil, want the write error")
	}
	if err := w.Close(); err != nil {
		t.Fatalf("Close = %v, want the snapshot written", err)
	}
	got := mustLoad(t, dir)
	if diff := addrs(got); len(diff) != 2 {
		t.Errorf("records after Close: %v, want the two committed before and at the failure", diff)
	}
}
