package run

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// pristine fails t unless tmp is as makeRunTemp makes it: a 0700 folder
// holding only home, an empty 0700 folder.
func pristine(t *testing.T, tmp string) {
	t.Helper()
	for _, dir := range []string{tmp, filepath.Join(tmp, "home")} {
		fi, err := os.Lstat(dir)
		if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
			t.Fatalf("%s: want a 0700 folder, got %v, %v", dir, fi, err)
		}
	}
	for dir, want := range map[string][]string{tmp: {"home"}, filepath.Join(tmp, "home"): nil} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if !slices.Equal(names, want) {
			t.Fatalf("%s holds %q, want %q", dir, names, want)
		}
	}
}

func TestRunTempsHandsBackAnEmptiedFolder(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	outside := t.TempDir()
	writeTestFile(t, filepath.Join(outside, "keep"), "not the run's")
	leftovers := map[string]func(t *testing.T, tmp string){
		"files and a read-only folder": func(t *testing.T, tmp string) {
			writeTestFile(t, filepath.Join(tmp, "a.txt"), "x")
			writeTestFile(t, filepath.Join(tmp, "ro", "deep", "b.txt"), "y")
			writeTestFile(t, filepath.Join(tmp, "home", ".cache", "c"), "z")
			chmod(t, filepath.Join(tmp, "ro", "deep"), 0o500)
			chmod(t, filepath.Join(tmp, "ro"), 0o500)
		},
		"home opened up": func(t *testing.T, tmp string) {
			chmod(t, filepath.Join(tmp, "home"), 0o755)
		},
		"home made read-only with a file in it": func(t *testing.T, tmp string) {
			writeTestFile(t, filepath.Join(tmp, "home", "f"), "x")
			chmod(t, filepath.Join(tmp, "home"), 0o500)
		},
		"home replaced by a link out": func(t *testing.T, tmp string) {
			if err := os.RemoveAll(filepath.Join(tmp, "home")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, filepath.Join(tmp, "home")); err != nil {
				t.Fatal(err)
			}
		},
		"home removed": func(t *testing.T, tmp string) {
			if err := os.Remove(filepath.Join(tmp, "home")); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, leave := range leftovers {
		t.Run(name, func(t *testing.T) {
			temps := &runTemps{}
			tmp, err := temps.get()
			if err != nil {
				t.Fatal(err)
			}
			pristine(t, tmp)
			leave(t, tmp)
			temps.put(tmp)
			again, err := temps.get()
			if err != nil {
				t.Fatal(err)
			}
			if again != tmp {
				t.Fatalf("the next run got %s, want the folder emptied: %s", again, tmp)
			}
			pristine(t, again)
			if b, err := os.ReadFile(filepath.Join(outside, "keep")); err != nil || string(b) != "not the run's" {
				t.Fatalf("emptying followed a link out of the folder: %q, %v", b, err)
			}
			temps.put(again)
			temps.close()
			if _, err := os.Lstat(tmp); !os.IsNotExist(err) {
				t.Fatalf("close left %s: %v", tmp, err)
			}
		})
	}
}

// A folder whose own mode the run changed is not handed out again: the
// next run gets a new one, and the old one is gone.
func TestRunTempsRemovesWhatItCannotPutBack(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	temps := &runTemps{}
	tmp, err := temps.get()
	if err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(tmp, "x"), "x")
	chmod(t, tmp, 0o755)
	temps.put(tmp)
	if _, err := os.Lstat(tmp); !os.IsNotExist(err) {
		t.Fatalf("%s was kept: %v", tmp, err)
	}
	next, err := temps.get()
	if err != nil {
		t.Fatal(err)
	}
	defer removeRunTemp(next)
	if next == tmp {
		t.Fatal("the removed folder was handed out again")
	}
	pristine(t, next)
}

// Without a pool (a run outside an apply) every folder is removed after
// its run.
func TestNoRunTempsRemovesEachFolder(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	var temps *runTemps
	tmp, err := temps.get()
	if err != nil {
		t.Fatal(err)
	}
	pristine(t, tmp)
	temps.put(tmp)
	if _, err := os.Lstat(tmp); !os.IsNotExist(err) {
		t.Fatalf("%s was kept: %v", tmp, err)
	}
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func chmod(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}
