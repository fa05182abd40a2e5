package state

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

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

func TestStoreLifecycle(t *testing.T) {
	dir := t.TempDir()
	st := OpenStore(dir)
	const key = "0a1b"
	if _, ok := st.Meta(key); ok {
		t.Fatal("Meta of an empty store reports a complete entry")
	}
	path, resumed, err := st.Begin(key, false)
	if err != nil || resumed || path != filepath.Join(dir, "store", key) || path != st.EntryPath(key) {
		t.Fatalf("Begin = %q, %v, %v", path, resumed, err)
	}
	writeFile(t, filepath.Join(path, "model.bin"), "weights")
	if _, ok := st.Meta(key); ok {
		t.Error("an entry without metadata is complete")
	}
	if inc, err := st.Incomplete(); err != nil || !cmp.Equal(inc, []string{key}) {
		t.Errorf("Incomplete = %v, %v; want [%s]", inc, err, key)
	}

	created := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	want := EntryMeta{Key: key, Digest: "dd", Addr: "exec.a", Created: created, Size: 7}
	if err := st.Complete(want); err != nil {
		t.Fatal(err)
	}
	got, ok := st.Meta(key)
	if !ok {
		t.Fatal("Meta after Complete: not complete")
	}
	if diff := cmp.Diff(want, *got); diff != "" {
		t.Errorf("Meta (-want +got):\n%s", diff)
	}
	if _, _, err := st.Begin(key, true); !errors.Is(err, ErrEntryComplete) {
		t.Errorf("Begin on a complete entry = %v, want ErrEntryComplete", err)
	}
	if data, _ := os.ReadFile(filepath.Join(path, "model.bin")); string(data) != "weights" {
		t.Error("Begin on a complete entry touched its files")
	}
	entries, err := st.Entries()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]EntryMeta{want}, entries); diff != "" {
		t.Errorf("Entries (-want +got):\n%s", diff)
	}
	if inc, _ := st.Incomplete(); len(inc) != 0 {
		t.Errorf("Incomplete after Complete = %v", inc)
	}
}

func TestBeginIncomplete(t *testing.T) {
	for _, tc := range []struct {
		resumable   bool
		wantResumed bool
		wantFile    bool
	}{
		{resumable: true, wantResumed: true, wantFile: true},
		{resumable: false, wantResumed: false, wantFile: false},
	} {
		st := OpenStore(t.TempDir())
		path, _, err := st.Begin("k1", tc.resumable)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(path, "ckpt", "step-100"), "x") // interrupted run

		path2, resumed, err := st.Begin("k1", tc.resumable)
		if err != nil {
			t.Fatal(err)
		}
		_, statErr := os.Stat(filepath.Join(path2, "ckpt", "step-100"))
		if resumed != tc.wantResumed || (statErr == nil) != tc.wantFile || path2 != path {
			t.Errorf("resumable=%v: resumed %v, checkpoint kept %v; want %v and %v", tc.resumable, resumed, statErr == nil, tc.wantResumed, tc.wantFile)
		}
		if fi, err := os.Stat(path2); err != nil || !fi.IsDir() {
			t.Errorf("resumable=%v: no entry folder after Begin: %v", tc.resumable, err)
		}
	}
}

func TestInvalidMetaIsIncomplete(t *testing.T) {
	dir := t.TempDir()
	st := OpenStore(dir)
	for key, meta := range map[string]string{
		"garbage":  "{not json",
		"otherkey": `{"key":"someone-else","digest":"d"}`,
		"nofolder": `{"key":"nofolder","digest":"d"}`,
	} {
		if key != "nofolder" {
			if _, _, err := st.Begin(key, false); err != nil {
				t.Fatal(err)
			}
		}
		writeFile(t, filepath.Join(dir, "store", key+".json"), meta)
		if _, ok := st.Meta(key); ok {
			t.Errorf("%s: invalid metadata counted as complete", key)
		}
	}
	if inc, _ := st.Incomplete(); !cmp.Equal(inc, []string{"garbage", "otherkey"}) {
		t.Errorf("Incomplete = %v", inc)
	}
	if _, _, err := st.Begin("garbage", true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "store", "garbage.json")); !errors.Is(err, os.ErrNotExist) {
		t.Error("Begin kept stale metadata, which could mark an unfinished run complete")
	}
}

func TestRemoveReadOnlyTree(t *testing.T) {
	st := OpenStore(t.TempDir())
	path, _, err := st.Begin("k", false)
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
	if err := st.Complete(EntryMeta{Key: "k"}); err != nil {
		t.Fatal(err)
	}
	if err := st.Remove("k"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("entry folder still there: %v", err)
	}
	if _, ok := st.Meta("k"); ok {
		t.Error("removed entry still complete")
	}
	if _, err := os.Stat("/etc"); err != nil {
		t.Errorf("Remove followed a symlink: %v", err)
	}
	if err := st.Remove("k"); err != nil {
		t.Errorf("Remove of a missing entry = %v, want nil", err)
	}
}

func TestInvalidNames(t *testing.T) {
	st := OpenStore(t.TempDir())
	for _, key := range []string{"", "..", "../x", "a/b", ".tmp", "k.json", "a b"} {
		if _, _, err := st.Begin(key, false); err == nil {
			t.Errorf("Begin(%q) accepted an invalid key", key)
		}
		if err := st.Complete(EntryMeta{Key: key}); err == nil {
			t.Errorf("Complete(%q) accepted an invalid key", key)
		}
		if err := st.Link("exec.a", key); err == nil {
			t.Errorf("Link to %q accepted an invalid key", key)
		}
		if err := st.Remove(key); err == nil {
			t.Errorf("Remove(%q) accepted an invalid key", key)
		}
	}
	for _, name := range []string{"", ".", "..", "a/b", ".exec.a.tmp"} {
		if err := st.Link(name, "k"); err == nil {
			t.Errorf("Link(%q) accepted an invalid name", name)
		}
	}
	if err := st.Complete(EntryMeta{Key: "nobegin"}); err == nil {
		t.Error("Complete without Begin succeeded")
	}
}
