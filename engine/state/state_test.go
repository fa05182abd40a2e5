package state

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// apply commits recs to the state in dir as one apply and returns the state
// after Close.
func apply(t *testing.T, dir string, recs ...*Record) *State {
	t.Helper()
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	w, err := OpenWriter(dir, s)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Commit(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return s
}

func mustLoad(t *testing.T, dir string) *State {
	t.Helper()
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestLoadMissingDir(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "no", ".kiln")
	a := mustLoad(t, dir)
	b := mustLoad(t, dir)
	if len(a.Records) != 0 || a.Serial != 0 || a.Version != FormatVersion {
		t.Errorf("Load of a missing folder = %+v, want an empty version-%d state", a, FormatVersion)
	}
	if len(a.Lineage) != 32 || a.Lineage == b.Lineage {
		t.Errorf("lineages %q and %q: want two fresh 32-hex ids", a.Lineage, b.Lineage)
	}
	if _, err := os.Stat(filepath.Join(root, "no")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load created files: %v", err)
	}
}

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	failed := sampleRecord(2)
	failed.Failure = &Failure{Key: "ff", Error: "exit status 3", ExitCode: 3, At: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC), Log: "l"}
	failed.Outputs = []Output{{Path: "/data/x", Digest: "d"}}
	first := apply(t, dir, sampleRecord(1), failed)

	got := mustLoad(t, dir)
	if diff := cmp.Diff(first.Records, got.Records); diff != "" {
		t.Errorf("records after Load (-committed +loaded):\n%s", diff)
	}
	if got.Serial != 1 || got.Lineage != first.Lineage {
		t.Errorf("after the first apply: serial %d lineage %q, want 1 and %q", got.Serial, got.Lineage, first.Lineage)
	}
	if _, err := os.Stat(filepath.Join(dir, journalName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("journal left after Close: %v", err)
	}

	second := apply(t, dir, sampleRecord(3))
	if second.Serial != 2 || second.Lineage != first.Lineage || len(second.Records) != 3 {
		t.Errorf("after the second apply: serial %d lineage %q records %d, want 2, %q, 3", second.Serial, second.Lineage, len(second.Records), first.Lineage)
	}
	backup, err := decodeSnapshotFile(filepath.Join(dir, backupName))
	if err != nil || backup.Serial != 1 || len(backup.Records) != 2 {
		t.Errorf("state.json.backup should hold the serial-1 snapshot with 2 records: %+v, %v", backup, err)
	}

	unchanged := apply(t, dir)
	if unchanged.Serial != 2 {
		t.Errorf("an apply that commits nothing bumped the serial to %d", unchanged.Serial)
	}
}

func decodeSnapshotFile(path string) (*State, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return decodeSnapshot(path, data)
}

func TestForget(t *testing.T) {
	dir := t.TempDir()
	apply(t, dir, sampleRecord(1), sampleRecord(2))
	s := mustLoad(t, dir)
	w, err := OpenWriter(dir, s)
	if err != nil {
		t.Fatal(err)
	}
	gone := sampleRecord(1).Addr
	if err := w.Forget(gone); err != nil {
		t.Fatal(err)
	}
	if err := w.Forget("exec.never_existed"); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Records[gone]; ok {
		t.Error("Forget did not remove the record from State.Records")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got := mustLoad(t, dir)
	if diff := cmp.Diff([]string{sampleRecord(2).Addr}, addrs(got)); diff != "" {
		t.Errorf("records after Forget (-want +got):\n%s", diff)
	}

	// Forgetting only unknown addresses changes nothing, the serial included.
	s = mustLoad(t, dir)
	w, err = OpenWriter(dir, s)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Forget(gone); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if s.Serial != got.Serial {
		t.Errorf("serial %d after forgetting nothing, want %d", s.Serial, got.Serial)
	}
}

func addrs(s *State) []string {
	var out []string
	for _, r := range s.Sorted() {
		out = append(out, r.Addr)
	}
	return out
}

func TestCommitKeepsACopy(t *testing.T) {
	dir := t.TempDir()
	s := mustLoad(t, dir)
	w, err := OpenWriter(dir, s)
	if err != nil {
		t.Fatal(err)
	}
	r := sampleRecord(1)
	if err := w.Commit(r); err != nil {
		t.Fatal(err)
	}
	r.Digest = "changed later"
	r.Attrs["pid"] = "changed later"
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sampleRecord(1), mustLoad(t, dir).Records[r.Addr]); diff != "" {
		t.Errorf("a change after Commit reached the state (-committed +loaded):\n%s", diff)
	}
}

func TestSnapshotDeterministic(t *testing.T) {
	a := &State{Lineage: "l", Records: map[string]*Record{}}
	b := &State{Lineage: "l", Records: map[string]*Record{}}
	for i := range 50 {
		ra, rb := sampleRecord(i), sampleRecord(49-i)
		a.Records[ra.Addr] = ra
		b.Records[rb.Addr] = rb
	}
	da, err := encodeSnapshot(a, 7)
	if err != nil {
		t.Fatal(err)
	}
	db, err := encodeSnapshot(b, 7)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(da, db) {
		t.Fatal("the same state encoded to different snapshots")
	}
	lines := bytes.Split(da, []byte("\n"))
	body := da[len(lines[0])+1:]
	if got, want := string(lines[0]), `{"version":`+strconv.Itoa(FormatVersion)+`,"lineage":"l","serial":7,"sum":"`+sumFrom(body)+`","records":[`; got != want {
		t.Errorf("first line %q, want %q", got, want)
	}
	if !bytes.Contains(lines[1], []byte(`"addr":"exec.sweep[\"cfg-00000\"]"`)) {
		t.Errorf("records are not sorted by address: first is %.60s", lines[1])
	}
}

func TestSnapshotHandEdited(t *testing.T) {
	// Any JSON layout of the snapshot is read, not only the one kiln writes.
	dir := t.TempDir()
	data := []byte(`{
  "serial": 4, "version": 1, "lineage": "abc",
  "records": [ {"addr": "exec.b", "kind": "exec", "digest": "d"},
               {"addr": "exec.a", "kind": "exec"} ]
}`)
	if err := os.WriteFile(filepath.Join(dir, snapshotName), data, 0o644); err != nil {
		t.Fatal(err)
	}
	s := mustLoad(t, dir)
	if diff := cmp.Diff([]string{"exec.a", "exec.b"}, addrs(s)); diff != "" || s.Serial != 4 || s.Lineage != "abc" {
		t.Errorf("hand-edited snapshot: serial %d lineage %q, records (-want +got):\n%s", s.Serial, s.Lineage, diff)
	}
	if !s.Records["exec.b"].Good() || s.Records["exec.a"].Good() {
		t.Error("Good() should follow Digest")
	}
}

func TestEmptySnapshotRoundTrip(t *testing.T) {
	dir := t.TempDir()
	apply(t, dir, sampleRecord(1))
	s := mustLoad(t, dir)
	w, err := OpenWriter(dir, s)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Forget(sampleRecord(1).Addr); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got := mustLoad(t, dir)
	if len(got.Records) != 0 || got.Serial != 2 {
		t.Errorf("state with no records: %d records, serial %d; want 0 and 2", len(got.Records), got.Serial)
	}
}

func TestOpenWriterRejectsStaleState(t *testing.T) {
	dir := t.TempDir()
	stale := mustLoad(t, dir)
	apply(t, dir, sampleRecord(1)) // another apply ran since stale was loaded
	if w, err := OpenWriter(dir, stale); err == nil {
		w.Close()
		t.Fatal("OpenWriter accepted a state loaded before another apply")
	}
}
