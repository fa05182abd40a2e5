package state

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestNewRunGivesEveryRunItsOwnFolder(t *testing.T) {
	dir := t.TempDir()
	st := OpenStore(dir)
	const key = "0a1b2c"
	e1, p1, err := st.NewRun(key)
	if err != nil {
		t.Fatal(err)
	}
	e2, p2, err := st.NewRun(key)
	if err != nil {
		t.Fatal(err)
	}
	if e1 == e2 || p1 == p2 {
		t.Fatalf("two runs share a folder: %s %s", e1, e2)
	}
	for _, tc := range []struct{ entry, path string }{{e1, p1}, {e2, p2}} {
		k, run, ok := ParseEntry(tc.entry)
		if !ok || k != key {
			t.Errorf("ParseEntry(%q) = %q, %q, %v", tc.entry, k, run, ok)
		}
		if want := filepath.Join(dir, "store", "0a", key+"-"+run); tc.path != want || st.RunPath(tc.entry) != want {
			t.Errorf("run path %q (RunPath %q), want %q", tc.path, st.RunPath(tc.entry), want)
		}
		if !st.Exists(tc.entry) {
			t.Errorf("%s does not exist after NewRun", tc.entry)
		}
	}
	runs, err := st.Runs()
	want := []string{e1, e2}
	if e2 < e1 {
		want = []string{e2, e1}
	}
	if err != nil || !cmp.Equal(runs, want) {
		t.Errorf("Runs = %v, %v; want %v", runs, err, want)
	}
	writeFile(t, filepath.Join(p1, "model.bin"), "weights")
	if err := st.RemoveRun(e2); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(p1, "model.bin")); string(data) != "weights" {
		t.Error("removing one run touched another run of the same key")
	}
	if err := st.RemoveRun(e1); err != nil {
		t.Fatal(err)
	}
	if st.Exists(e1) {
		t.Errorf("%s exists after RemoveRun", e1)
	}
	if err := st.RemoveRun(e1); err != nil {
		t.Errorf("RemoveRun of a missing run = %v, want nil", err)
	}
}

func TestRemoveReadOnlyTree(t *testing.T) {
	st := OpenStore(t.TempDir())
	entry, path, err := st.NewRun("kk")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(path, "pkg", "mod", "a.go"), "package a")
	if err := os.Symlink("/etc", filepath.Join(path, "pkg", "link")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(path, "pkg", "mod", "a.go"), filepath.Join(path, "pkg", "mod"), filepath.Join(path, "pkg")} {
		if err := os.Chmod(p, 0o555); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.RemoveRun(entry); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("run folder still there: %v", err)
	}
	if _, err := os.Stat("/etc"); err != nil {
		t.Errorf("RemoveRun followed a symlink: %v", err)
	}
}

func TestInvalidNames(t *testing.T) {
	st := OpenStore(t.TempDir())
	for _, key := range []string{"", "k", "..", "../x", "a/b", ".tmp", "a b"} {
		if _, _, err := st.NewRun(key); err == nil {
			t.Errorf("NewRun(%q) accepted an invalid key", key)
		}
	}
	for _, entry := range []string{"", "kk", "kk-", "-r1", "kk/r1", "kk-../x", "kk-R1", "kk-r1/x", "0a1b2c3d", "k-r1"} {
		if ValidEntry(entry) || st.RunPath(entry) != "" {
			t.Errorf("entry %q accepted", entry)
		}
		if err := st.Link("exec.a", entry); err == nil {
			t.Errorf("Link to %q accepted an invalid entry", entry)
		}
		if err := st.RemoveRun(entry); err == nil {
			t.Errorf("RemoveRun(%q) accepted an invalid entry", entry)
		}
	}
	for _, name := range []string{"", ".", "..", "a/b", ".exec.a.tmp"} {
		if err := st.Link(name, "kk-r1"); err == nil {
			t.Errorf("Link(%q) accepted an invalid name", name)
		}
	}
}

// TestStraysOfTheEarlierLayout: folders of the store's earlier layouts
// (store/KEY and store/KEY.json; store/SHARD/KEY/RUN) are neither runs nor
// an error; gc finds them as strays.
func TestStraysOfTheEarlierLayout(t *testing.T) {
	dir := t.TempDir()
	st := OpenStore(dir)
	old := strings.Repeat("ab", 32)
	writeFile(t, filepath.Join(dir, "store", old, "out"), "x")
	writeFile(t, filepath.Join(dir, "store", old+".json"), `{"key":"`+old+`"}`)
	writeFile(t, filepath.Join(dir, "store", "ab", old, "0011223344", "out"), "x")
	entry, _, err := st.NewRun(old)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := st.Runs()
	if err != nil || !cmp.Equal(runs, []string{entry}) {
		t.Errorf("Runs = %v, %v; want only %s", runs, err, entry)
	}
	strays, err := st.Strays()
	if err != nil || !cmp.Equal(strays, []string{"ab/" + old, old, old + ".json"}) {
		t.Errorf("Strays = %v, %v", strays, err)
	}
	for _, s := range strays {
		if err := st.RemoveStray(s); err != nil {
			t.Fatal(err)
		}
	}
	if strays, _ := st.Strays(); len(strays) != 0 || !st.Exists(entry) {
		t.Errorf("after removing strays: %v left, run exists %v", strays, st.Exists(entry))
	}
}

// TestNewRunAfterJournalsBeforeTheFolder: the run is named to before (the
// journal) while its folder does not exist yet, so that a kill in between
// leaves no folder that nothing names; when before fails, no folder is made.
func TestNewRunAfterJournalsBeforeTheFolder(t *testing.T) {
	st := OpenStore(t.TempDir())
	var named string
	entry, path, err := st.NewRunAfter("0a1b2c", func(e string) error {
		named = e
		if st.Exists(e) {
			t.Errorf("the folder of %s exists before the run is journaled", e)
		}
		return nil
	})
	if err != nil || entry != named || !st.Exists(entry) {
		t.Fatalf("NewRunAfter = %q, %q, %v; journaled %q, folder there: %v", entry, path, err, named, st.Exists(entry))
	}
	full := errors.New("journal: disk full")
	entry, _, err = st.NewRunAfter("0a1b2c", func(e string) error { named = e; return full })
	if !errors.Is(err, full) || entry != "" || st.Exists(named) {
		t.Fatalf("with a failing journal: %q, %v; folder of %s there: %v", entry, err, named, st.Exists(named))
	}
}

// InRun finds the run folder a path lies in by the store's layout, and
// nothing for paths elsewhere or of another shape.
func TestStoreInRun(t *testing.T) {
	s := OpenStore("/p/.kiln")
	key := strings.Repeat("ab", 32)
	entry := Entry(key, "0123456789")
	for _, c := range []struct {
		path, entry, rest string
		ok                bool
	}{
		{"/p/.kiln/store/ab/" + entry + "/bin/python", entry, "bin/python", true},
		{"/p/.kiln/store/ab/" + entry, entry, "", true},
		{"/p/.kiln/store/cd/" + entry + "/bin/python", "", "", false}, // not its shard
		{"/p/.kiln/store/ab", "", "", false},
		{"/p/.kiln/out/exec.a/bin/python", "", "", false},
		{"/usr/bin/python3", "", "", false},
	} {
		entry, rest, ok := s.InRun(c.path)
		if entry != c.entry || rest != c.rest || ok != c.ok {
			t.Errorf("InRun(%s) = %q, %q, %v; want %q, %q, %v", c.path, entry, rest, ok, c.entry, c.rest, c.ok)
		}
	}
}
