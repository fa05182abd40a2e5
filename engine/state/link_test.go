package state

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func TestLink(t *testing.T) {
	dir := t.TempDir()
	st := OpenStore(dir)
	var entries []string
	for _, key := range []string{"k1", "k2"} {
		entry, path, err := st.NewRun(key)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(path, "which"), key)
		entries = append(entries, entry)
	}
	const name = `exec.a[x%2Fy]`
	if _, ok := st.Linked(name); ok {
		t.Error("Linked before Link")
	}
	for _, i := range []int{0, 1, 0} {
		entry := entries[i]
		if err := st.Link(name, entry); err != nil {
			t.Fatal(err)
		}
		if got, ok := st.Linked(name); !ok || got != entry {
			t.Errorf("Linked = %q, %v; want %q", got, ok, entry)
		}
		target, err := os.Readlink(st.OutPath(name))
		key, _, _ := ParseEntry(entry)
		if want := "../store/" + key[:2] + "/" + entry; err != nil || target != want {
			t.Errorf("link target %q, %v; want the relative %s", target, err, want)
		}
		if data, _ := os.ReadFile(filepath.Join(st.OutPath(name), "which")); string(data) != key {
			t.Errorf("through the stable path: %q, want %q", data, key)
		}
	}
	if st.OutPath(name) != filepath.Join(dir, "out", name) {
		t.Errorf("OutPath = %q", st.OutPath(name))
	}
	if des, _ := os.ReadDir(filepath.Join(dir, "out")); len(des) != 1 {
		t.Errorf("out/ holds %d entries, want only the link", len(des))
	}
	if des, _ := os.ReadDir(filepath.Join(dir, "tmp")); len(des) != 0 {
		t.Errorf("tmp/ holds %d entries, want no temporary links left", len(des))
	}

	if err := st.Unlink(name); err != nil {
		t.Fatal(err)
	}
	if _, ok := st.Linked(name); ok {
		t.Error("Linked after Unlink")
	}
	if err := st.Unlink(name); err != nil {
		t.Errorf("Unlink of a missing link = %v, want nil", err)
	}
	if !st.Exists(entries[0]) {
		t.Error("Unlink touched the run folder")
	}
}

// TestLinkedIgnoresEarlierLayout: a link of the earlier store layout
// (../store/KEY) names no entry.
func TestLinkedIgnoresEarlierLayout(t *testing.T) {
	st := OpenStore(t.TempDir())
	writeFile(t, filepath.Join(st.dir, "keep"), "")
	if err := os.MkdirAll(st.outDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../store/0a1b", st.OutPath("exec.a")); err != nil {
		t.Fatal(err)
	}
	if e, ok := st.Linked("exec.a"); ok {
		t.Errorf("Linked = %q for a link of the earlier layout", e)
	}
	entry, _, err := st.NewRun("0a1b")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Link("exec.a", entry); err != nil {
		t.Fatal(err)
	}
	if e, ok := st.Linked("exec.a"); !ok || e != entry {
		t.Errorf("after relinking: Linked = %q, %v", e, ok)
	}
}

func TestLinkRefusesToReplaceARealFolder(t *testing.T) {
	st := OpenStore(t.TempDir())
	entry, _, err := st.NewRun("kk")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(st.OutPath("exec.a"), "precious"), "x")
	if err := st.Link("exec.a", entry); err == nil {
		t.Error("Link replaced a real folder")
	}
	if err := st.Unlink("exec.a"); err == nil {
		t.Error("Unlink removed a real folder")
	}
	if _, err := os.Stat(filepath.Join(st.OutPath("exec.a"), "precious")); err != nil {
		t.Errorf("the folder's content is gone: %v", err)
	}
}

func TestLinkIsAtomic(t *testing.T) {
	// A reader never finds the stable path missing while it is relinked.
	st := OpenStore(t.TempDir())
	if err := st.Link("exec.a", "k0-r0"); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var missing error
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := os.Readlink(st.OutPath("exec.a")); errors.Is(err, os.ErrNotExist) {
				missing = err
				return
			}
		}
	})
	for i := range 100 {
		if err := st.Link("exec.a", []string{"k1-r1", "k2-r2"}[i%2]); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	if missing != nil {
		t.Errorf("the stable path was missing during a relink: %v", missing)
	}
}
