package hash

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// cacheCase is a tree the stat cache is checked against, with a change made
// after the cache is warm; a nil change leaves the tree as is.
type cacheCase struct {
	name   string
	change func(t *testing.T, dir string)
	dir    string
}

// TestStatCache builds every fixture first and waits out the racy window
// once, so that the stat cache stores digests exactly as it would for files
// written long before a build.
func TestStatCache(t *testing.T) {
	nodes := append(manyFiles(120), exe("bin/tool", "#!/bin/sh\n"), link("ln", "bin/tool"))
	oldTime := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := []*cacheCase{
		{name: "unchanged"},
		{name: "bigger", change: func(t *testing.T, dir string) { write(t, dir, "d000/f00007.txt", "more content than before\n") }},
		{name: "same size", change: func(t *testing.T, dir string) { write(t, dir, "d000/f00007.txt", "CONTENT of file 7\n") }},
		{name: "same size, mtime forced back", change: func(t *testing.T, dir string) {
			p := filepath.Join(dir, "d000/f00007.txt")
			write(t, dir, "d000/f00007.txt", "CONTENT of file 7\n")
			if err := os.Chtimes(p, oldTime, oldTime); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "replaced by rename, mtime forced back", change: func(t *testing.T, dir string) {
			write(t, dir, "new.tmp", "CONTENT of file 7\n")
			if err := os.Chtimes(filepath.Join(dir, "new.tmp"), oldTime, oldTime); err != nil {
				t.Fatal(err)
			}
			rename(t, dir, "new.tmp", "d000/f00007.txt")
		}},
	}
	for _, c := range cases {
		c.dir = build(t, nodes...)
		for _, p := range []string{"d000/f00007.txt", "new.tmp"} { // an old mtime from the start
			os.Chtimes(filepath.Join(c.dir, p), oldTime, oldTime)
		}
	}
	saveDir := build(t, nodes...)
	single := build(t, file("weights.bin", "tensor bytes"), folder("sub"))

	// Files written a moment ago are hashed but not cached.
	fresh := build(t, file("a", "a"), file("b", "b"))
	written := time.Now()
	racy := NewStatCache()
	mustTree(t, fresh, racy, TreeOptions{})
	if time.Since(written) < racyWindow && racy.Len() != 0 {
		t.Errorf("digests of files changed within %v were cached: Len() = %d", racyWindow, racy.Len())
	}

	waitOutRacyWindow()
	files := int64(len(nodes) - 1)

	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cache := NewStatCache()
			first := mustTree(t, c.dir, cache, TreeOptions{})
			if cache.Len() != int(files) || cache.misses.Load() != files {
				t.Fatalf("after the first walk: Len() = %d, misses = %d; want %d each", cache.Len(), cache.misses.Load(), files)
			}
			second := mustTree(t, c.dir, cache, TreeOptions{Workers: 4})
			if second != first || cache.hits.Load() != files {
				t.Fatalf("second walk: %s with %d hits; want %s with %d hits", second, cache.hits.Load(), first, files)
			}
			if c.change == nil {
				return
			}
			c.change(t, c.dir)
			changed := time.Now()
			got := mustTree(t, c.dir, cache, TreeOptions{})
			if got == first {
				t.Fatalf("the stat cache hid the change: digest still %s", got)
			}
			if want := mustTree(t, c.dir, nil, TreeOptions{}); got != want {
				t.Errorf("digest with the cache %s, without %s", got, want)
			}
			misses := cache.misses.Load()
			mustTree(t, c.dir, cache, TreeOptions{})
			if time.Since(changed) < racyWindow && cache.misses.Load() != misses+1 {
				t.Errorf("the file changed just now was trusted: %d misses, want 1", cache.misses.Load()-misses)
			}
		})
	}

	t.Run("save and load", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "state", "statcache")
		cache := NewStatCache()
		want := mustTree(t, saveDir, cache, TreeOptions{})
		if err := cache.Save(path); err != nil {
			t.Fatal(err)
		}
		loaded := LoadStatCache(path)
		if loaded.Len() != cache.Len() {
			t.Fatalf("loaded %d entries, saved %d", loaded.Len(), cache.Len())
		}
		if got := mustTree(t, saveDir, loaded, TreeOptions{}); got != want || loaded.hits.Load() != files {
			t.Errorf("loaded cache: %s with %d hits, want %s with %d", got, loaded.hits.Load(), want, files)
		}
		saved := stat(t, path)
		if err := loaded.Save(path); err != nil {
			t.Fatal(err)
		}
		if err := cache.Save(path); err != nil {
			t.Fatal(err)
		}
		if !os.SameFile(saved, stat(t, path)) {
			t.Error("Save rewrote the file although no entry changed")
		}
		loaded.Prune(func(p string) bool { return filepath.Base(p) != "f00003.txt" })
		if err := loaded.Save(path); err != nil {
			t.Fatal(err)
		}
		if os.SameFile(saved, stat(t, path)) {
			t.Error("Save after Prune left the old file")
		}
		if n := LoadStatCache(path).Len(); n != int(files)-1 {
			t.Errorf("after Prune of one entry, the saved cache has %d entries, want %d", n, files-1)
		}
	})

	t.Run("File keys by absolute clean path", func(t *testing.T) {
		t.Parallel()
		cache := NewStatCache()
		want := Bytes([]byte("tensor bytes"))
		for _, p := range []string{single + "/weights.bin", single + "/./weights.bin", single + "/sub/../weights.bin"} {
			if d, err := File(p, cache); err != nil || d != want {
				t.Errorf("File(%s) = %s, %v; want %s", p, d, err, want)
			}
		}
		if cache.Len() != 1 || cache.misses.Load() != 1 || cache.hits.Load() != 2 {
			t.Errorf("one file read three ways: Len() = %d, %d misses, %d hits; want 1, 1, 2",
				cache.Len(), cache.misses.Load(), cache.hits.Load())
		}
	})

	t.Run("shared by concurrent walks", func(t *testing.T) {
		t.Parallel()
		cache := NewStatCache()
		want := mustTree(t, saveDir, nil, TreeOptions{})
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for range 3 {
					if got, err := TreeWith(saveDir, cache, TreeOptions{Workers: 8}); err != nil || got != want {
						t.Errorf("concurrent walk: %s, %v; want %s", got, err, want)
					}
				}
			})
		}
		wg.Wait()
	})
}

func TestStatCachePrune(t *testing.T) {
	// Entries both loaded and stored since, some stored over loaded ones.
	path := filepath.Join(t.TempDir(), "cache")
	c := NewStatCache()
	long := time.Now().Add(time.Hour)
	for _, p := range []string{"/s/a/1", "/s/b/1", "/s/b/2"} {
		c.store(p, signature{ino: 1}, Bytes([]byte(p)), long)
	}
	if err := c.Save(path); err != nil {
		t.Fatal(err)
	}
	c = LoadStatCache(path)
	for _, p := range []string{"/s/a/2", "/s/b/2", "/s/b/3"} {
		c.store(p, signature{ino: 2}, Bytes([]byte(p)), long)
	}
	if c.Len() != 5 {
		t.Fatalf("Len() = %d, want 5", c.Len())
	}
	c.Prune(func(p string) bool { return filepath.Dir(p) == "/s/a" })
	if c.Len() != 2 {
		t.Errorf("Len() after Prune = %d, want 2", c.Len())
	}
	if err := c.Save(path); err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, e := range LoadStatCache(path).sorted {
		kept = append(kept, e.path)
	}
	if diff := cmp.Diff([]string{"/s/a/1", "/s/a/2"}, kept); diff != "" {
		t.Errorf("saved after Prune (-want +got):\n%s", diff)
	}
}

func stat(t *testing.T, path string) os.FileInfo {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}
