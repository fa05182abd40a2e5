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
	for _, key := range []string{"k1", "k2"} {
		path, _, err := st.Begin(key, false)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(path, "which"), key)
	}
	const name = `exec.a[x%2Fy]`
	if _, ok := st.Linked(name); ok {
		t.Error("Linked before Link")
	}
	for _, key := range []string{"k1", "k2", "k1"} {
		if err := st.Link(name, key); err != nil {
			t.Fatal(err)
		}
		if got, ok := st.Linked(name); !ok || got != key {
			t.Errorf("Linked = %q, %v; want %q", got, ok, key)
		}
		target, err := os.Readlink(st.OutPath(name))
		if err != nil || target != "../store/"+key {
			t.Errorf("link target %q, %v; want the relative ../store/%s", target, err, key)
		}
		if data, _ := os.ReadFile(filepath.Join(st.OutPath(name), "which")); string(data) != key {
			t.Errorf("through the stable path: %q, want %q", data, key)
		}
	}
	if st.OutPath(name) != filepath.Join(dir, "out", name) {
		t.Errorf("OutPath = %q", st.OutPath(name))
	}
	if des, _ := os.ReadDir(filepath.Join(dir, "out")); len(des) != 1 {
		t.Errorf("out/ holds %d entries, want only the link (no temporary links left)", len(des))
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
	if _, err := os.Stat(st.EntryPath("k1")); err != nil {
		t.Errorf("Unlink touched the store entry: %v", err)
	}
}

func TestLinkRefusesToReplaceARealFolder(t *testing.T) {
	st := OpenStore(t.TempDir())
	if _, _, err := st.Begin("k", false); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(st.OutPath("exec.a"), "precious"), "x")
	if err := st.Link("exec.a", "k"); err == nil {
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
	if err := st.Link("exec.a", "k0"); err != nil {
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
		if err := st.Link("exec.a", []string{"k1", "k2"}[i%2]); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	if missing != nil {
		t.Errorf("the stable path was missing during a relink: %v", missing)
	}
}
