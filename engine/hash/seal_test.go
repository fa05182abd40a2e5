package hash

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// sealedFolder writes a folder of two files and a symlink, lists it and
// fills a stat cache for it as if both were hashed long after they were
// written, so that the cache vouches for them.
func sealedFolder(t *testing.T) (dir string, l *Listing, c *StatCache) {
	t.Helper()
	dir = t.TempDir()
	for name, content := range map[string]string{"a": "one\n", "b": "two\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("a", filepath.Join(dir, "l")); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(2 * racyWindow)
	l, ok := listFolder(dir, later)
	if !ok {
		t.Fatal("listFolder refused the folder")
	}
	c = NewStatCache()
	if _, _, ok := SealTree(dir, l, c); ok {
		t.Fatal("SealTree sealed a folder whose files the stat cache does not vouch for")
	}
	for _, name := range []string{"a", "b"} {
		p := filepath.Join(dir, name)
		info, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		sig, _ := signatureOf(info)
		d, err := File(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		c.store(p, sig, d, later)
	}
	return dir, l, c
}

// TestSealHoldsWhileEveryStampHolds: a sealed folder digests as Tree says,
// and the seal stops holding after any change to the folder or a file —
// also one that keeps the file's size and sets its mtime back.
func TestSealHoldsWhileEveryStampHolds(t *testing.T) {
	for name, change := range map[string]func(dir string) error{
		"none": func(string) error { return nil },
		"edit, same size, mtime set back": func(dir string) error {
			p := filepath.Join(dir, "a")
			info, err := os.Lstat(p)
			if err != nil {
				return err
			}
			if err := os.WriteFile(p, []byte("ONE\n"), 0o644); err != nil {
				return err
			}
			return os.Chtimes(p, info.ModTime(), info.ModTime())
		},
		"touch":  func(dir string) error { now := time.Now(); return os.Chtimes(filepath.Join(dir, "b"), now, now) },
		"chmod":  func(dir string) error { return os.Chmod(filepath.Join(dir, "b"), 0o755) },
		"add":    func(dir string) error { return os.WriteFile(filepath.Join(dir, "c"), nil, 0o644) },
		"remove": func(dir string) error { return os.Remove(filepath.Join(dir, "b")) },
		"replaced by an identical copy": func(dir string) error {
			tmp := filepath.Join(t.TempDir(), "a")
			if err := os.WriteFile(tmp, []byte("one\n"), 0o644); err != nil {
				return err
			}
			return os.Rename(tmp, filepath.Join(dir, "a"))
		},
		"symlink retargeted": func(dir string) error {
			if err := os.Remove(filepath.Join(dir, "l")); err != nil {
				return err
			}
			return os.Symlink("b", filepath.Join(dir, "l"))
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir, l, c := sealedFolder(t)
			seal, d, ok := SealTree(dir, l, c)
			if !ok || len(seal) != 2 {
				t.Fatalf("SealTree = %v, %v; want the stamps of a and b", seal, ok)
			}
			want, err := Tree(dir, nil)
			if err != nil || d != want {
				t.Fatalf("sealed digest %v, Tree %v (%v)", d, want, err)
			}
			if err := change(dir); err != nil {
				t.Fatal(err)
			}
			if got := SealHolds(dir, l, seal); got != (name == "none") {
				t.Errorf("SealHolds after %s = %v", name, got)
			}
			r, ok := OpenRoot(filepath.Dir(dir))
			if !ok {
				t.Fatal("OpenRoot failed")
			}
			defer r.Close()
			if got := SealHoldsAt(r, l, seal, filepath.Base(dir)); got != (name == "none") {
				t.Errorf("SealHoldsAt after %s = %v", name, got)
			}
		})
	}
}

// TestSealFileHoldsWhileItsStampHolds: a file's seal is its stamp under a
// digest the cache vouches for, and a same-size edit with the mtime set
// back breaks it.
func TestSealFileHoldsWhileItsStampHolds(t *testing.T) {
	dir, _, c := sealedFolder(t)
	p := filepath.Join(dir, "a")
	st, d, ok := SealFile(p, c)
	if want, err := File(p, nil); !ok || err != nil || d != want {
		t.Fatalf("SealFile = %v, %v; want %v (%v)", d, ok, want, err)
	}
	if !FileHolds(p, st) {
		t.Fatal("FileHolds: false for the unchanged file")
	}
	if _, _, ok := SealFile(filepath.Join(dir, "l"), c); ok {
		t.Error("SealFile sealed a symlink")
	}
	info, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("ONE\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	if FileHolds(p, st) {
		t.Error("FileHolds: true after a same-size edit with the mtime set back")
	}
}
