package state

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/hash"
)

func built(addr, key, entry, digest string) *Record {
	return &Record{Addr: addr, Kind: "exec", Key: key, Digest: digest, Entry: entry, KeyLines: []hash.Line{{Label: "k", Value: key}}}
}

func historyKeys(s *State) []string {
	var keys []string
	for k, r := range s.History {
		keys = append(keys, k+"="+r.Entry)
	}
	sort.Strings(keys)
	return keys
}

// TestHistoryKeepsEarlierResults: a node's record that gives way to one
// under another key stays restorable from History, across a crash (journal
// replay) and a compaction alike; a result taken up again, dropped, or
// superseded under its own key leaves History.
func TestHistoryKeepsEarlierResults(t *testing.T) {
	steps := []struct {
		name   string
		do     func(w *Writer) error
		want   []string
		lookup string // a record's entry that must be Referenced
	}{
		{"first build", func(w *Writer) error { return w.Commit(built("exec.a", "k1", "k1-r1", "d1")) }, nil, "k1-r1"},
		{"rebuilt under k2", func(w *Writer) error { return w.Commit(built("exec.a", "k2", "k2-r2", "d2")) }, []string{"k1=k1-r1"}, "k1-r1"},
		{"failure keeps the result", func(w *Writer) error {
			r := built("exec.a", "k2", "k2-r2", "d2")
			r.Failure = &Failure{Key: "k3", Error: "exit status 1", Entry: "k3-r3"}
			return w.Commit(r)
		}, []string{"k1=k1-r1"}, "k3-r3"},
		{"restored k1", func(w *Writer) error { return w.Commit(built("exec.a", "k1", "k1-r1", "d1")) }, []string{"k2=k2-r2"}, "k2-r2"},
		{"replaced under k1", func(w *Writer) error { return w.Commit(built("exec.a", "k1", "k1-r4", "d1")) }, []string{"k2=k2-r2"}, "k1-r4"},
		{"forgotten", func(w *Writer) error { return w.Forget("exec.a") }, []string{"k1=k1-r4", "k2=k2-r2"}, "k1-r4"},
		{"gc dropped k2", func(w *Writer) error { return w.Drop("k2") }, []string{"k1=k1-r4"}, "k1-r4"},
	}
	for _, crash := range []bool{false, true} {
		dir := t.TempDir()
		for _, st := range steps {
			s := mustLoad(t, dir)
			w, err := OpenWriter(dir, s)
			if err != nil {
				t.Fatal(err)
			}
			if err := st.do(w); err != nil {
				t.Fatal(err)
			}
			if !w.Referenced(st.lookup) {
				t.Errorf("crash=%v, %s: %s is not referenced", crash, st.name, st.lookup)
			}
			if crash {
				if err := w.Flush(); err != nil {
					t.Fatal(err)
				}
				w.file.Close()
			} else if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(st.want, historyKeys(mustLoad(t, dir))); diff != "" {
				t.Errorf("crash=%v, after %s: history (-want +got):\n%s", crash, st.name, diff)
			}
		}
	}
}

// TestLoadVersion1: a snapshot written before the history existed loads,
// with its records as they were; the next write is version 2.
func TestLoadVersion1(t *testing.T) {
	dir := t.TempDir()
	v1 := `{"version":1,"lineage":"l1","serial":3,"records":[
{"addr":"exec.a","kind":"exec","key":"k","key_lines":null,"digest":"d","entry":"k","started":"0001-01-01T00:00:00Z","duration_ns":0}
]}
`
	if err := os.WriteFile(filepath.Join(dir, "state.json"), []byte(v1), 0o644); err != nil {
		t.Fatal(err)
	}
	s := mustLoad(t, dir)
	if r := s.Records["exec.a"]; r == nil || r.Entry != "k" || len(s.History) != 0 || s.Serial != 3 {
		t.Fatalf("loaded %+v, history %v", r, s.History)
	}
	after := apply(t, dir, built("exec.a", "k2", "k2-r2", "d2"))
	if len(after.History) != 0 {
		t.Errorf("a record of the earlier store layout went to History: %v", historyKeys(after))
	}
	data, _ := os.ReadFile(filepath.Join(dir, "state.json"))
	if want := fmt.Sprintf(`{"version":%d,`, FormatVersion); string(data[:len(want)]) != want {
		got := string(data[:len(want)])
		t.Errorf("rewritten as %q", got)
	}
}
