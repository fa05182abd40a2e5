package hash

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestTreeLines(t *testing.T) {
	dir := build(t,
		file("a.txt", "hello"),
		file("a/b", "in a"),
		exe("bin/run", "#!/bin/sh\n"),
		folder("empty"),
		link("link", "a.txt"),
		file("new\nline", "n"),
		link("sp ace", "t x"),
		link("dangling", "../../nowhere"),
	)
	sum := func(s string) string { return Bytes([]byte(s)).String() }
	want := []string{
		"d a",
		"f a.txt - 5 " + sum("hello"),
		"f a/b - 4 " + sum("in a"),
		"d bin",
		"f bin/run x 10 " + sum("#!/bin/sh\n"),
		"l dangling ../../nowhere",
		"d empty",
		"l link a.txt",
		`f "new\nline" - 1 ` + sum("n"),
		`l "sp ace" t x`,
	}
	entries, err := Manifest(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.line())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tree lines (-want +got):\n%s", diff)
	}
	if d := mustTree(t, dir, nil, TreeOptions{}); d != Lines(want...) {
		t.Errorf("Tree = %s, want the hash of the lines %s", d, Lines(want...))
	}
}

func TestTreeRoots(t *testing.T) {
	dir := build(t, file("plain", "hello"), exe("tool", "run"), link("ln", "some target"), folder("empty"))
	sum := func(s string) string { return Bytes([]byte(s)).String() }
	cases := []struct {
		path string
		want Digest
	}{
		{"plain", Lines("f . - 5 " + sum("hello"))},
		{"tool", Lines("f . x 3 " + sum("run"))},
		{"ln", Lines("l . some target")},
		{"empty", Lines()},
	}
	for _, c := range cases {
		if got := mustTree(t, filepath.Join(dir, c.path), nil, TreeOptions{}); got != c.want {
			t.Errorf("Tree(%s) = %s, want %s", c.path, got, c.want)
		}
	}
}

// base is the tree that TestTreeChanges mutates.
var base = []node{
	file("README", "readme"),
	file("src/main.go", "package main"),
	exe("bin/tool", "#!/bin/sh\necho hi\n"),
	link("latest", "src/main.go"),
	folder("logs"),
}

func TestTreeChanges(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(t *testing.T, dir string)
		same   bool
	}{
		{"content", func(t *testing.T, dir string) { write(t, dir, "README", "readme, longer") }, false},
		{"content same size", func(t *testing.T, dir string) { write(t, dir, "README", "READme") }, false},
		{"rename", func(t *testing.T, dir string) { rename(t, dir, "README", "README.md") }, false},
		{"move to a folder", func(t *testing.T, dir string) { rename(t, dir, "README", "logs/README") }, false},
		{"exec bit set", func(t *testing.T, dir string) { chmod(t, dir, "README", 0o744) }, false},
		{"exec bit cleared", func(t *testing.T, dir string) { chmod(t, dir, "bin/tool", 0o644) }, false},
		{"symlink target", func(t *testing.T, dir string) { relink(t, dir, "latest", "README") }, false},
		{"new empty folder", func(t *testing.T, dir string) { create(t, dir, folder("src/empty")) }, false},
		{"empty folder removed", func(t *testing.T, dir string) { remove(t, dir, "logs") }, false},
		{"symlink becomes file", func(t *testing.T, dir string) {
			remove(t, dir, "latest")
			create(t, dir, file("latest", "src/main.go"))
		}, false},
		{"0644 to 0664", func(t *testing.T, dir string) { chmod(t, dir, "README", 0o664) }, true},
		{"0644 to 0600", func(t *testing.T, dir string) { chmod(t, dir, "README", 0o600) }, true},
		{"0755 to 0711", func(t *testing.T, dir string) { chmod(t, dir, "bin/tool", 0o711) }, true},
		{"folder 0755 to 0700", func(t *testing.T, dir string) { chmod(t, dir, "src", 0o700) }, true},
		{"mtime", func(t *testing.T, dir string) {
			old := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
			if err := os.Chtimes(filepath.Join(dir, "README"), old, old); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"rewritten as is", func(t *testing.T, dir string) { remove(t, dir, "README"); write(t, dir, "README", "readme") }, true},
	}
	want := mustTree(t, build(t, base...), nil, TreeOptions{})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := build(t, base...)
			c.mutate(t, dir)
			got := mustTree(t, dir, nil, TreeOptions{})
			if (got == want) != c.same {
				t.Errorf("digest after %s: %s, before: %s; want same=%v", c.name, got, want, c.same)
			}
		})
	}
}

func TestTreeCreationOrder(t *testing.T) {
	reversed := make([]node, len(base))
	for i, n := range base {
		reversed[len(base)-1-i] = n
	}
	a := mustTree(t, build(t, base...), nil, TreeOptions{})
	b := mustTree(t, build(t, reversed...), nil, TreeOptions{})
	if a != b {
		t.Errorf("creation order changed the digest: %s vs %s", a, b)
	}
}

func TestTreeWorkers(t *testing.T) {
	dir := build(t, append(manyFiles(300), exe("d000/run", "x"), link("d001/ln", "../d000"))...)
	want := mustTree(t, dir, nil, TreeOptions{Workers: 1})
	for _, w := range []int{0, 2, 8, 64} {
		if got := mustTree(t, dir, nil, TreeOptions{Workers: w}); got != want {
			t.Errorf("Workers=%d gives %s, Workers=1 gives %s", w, got, want)
		}
	}
}

func TestTreeExclude(t *testing.T) {
	with := build(t, append(base, file(".git/HEAD", "ref"), folder(".git/objects"), file("src/.git", "x"))...)
	without := build(t, base...)
	exclude := func(rel string) bool { return rel == ".git" }
	if got, want := mustTree(t, with, nil, TreeOptions{Exclude: exclude}), mustTree(t, without, nil, TreeOptions{}); got == want {
		t.Errorf("Exclude(.git) left src/.git out as well")
	}
	exclude = func(rel string) bool { return filepath.Base(rel) == ".git" }
	if got, want := mustTree(t, with, nil, TreeOptions{Exclude: exclude}), mustTree(t, without, nil, TreeOptions{}); got != want {
		t.Errorf("excluded tree = %s, tree without the entries = %s", got, want)
	}
}

func TestTreeMissingPath(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-folder")
	_, err := Tree(missing, nil)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("Tree(missing) error = %v; want fs.ErrNotExist naming %s", err, missing)
	}
	_, err = File(missing, nil)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("File(missing) error = %v; want fs.ErrNotExist naming %s", err, missing)
	}
}

func TestTreeSpecialFiles(t *testing.T) {
	dir := build(t, base...)
	fifo := filepath.Join(dir, "src", "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sockDir := build(t, base...)
	sock := filepath.Join(sockDir, "s.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	cases := []struct {
		root, path, what string
	}{
		{dir, fifo, "fifo"},
		{fifo, fifo, "fifo"},
		{sockDir, sock, "socket"},
	}
	for _, c := range cases {
		_, err := Tree(c.root, nil)
		if err == nil || !strings.Contains(err.Error(), c.path) || !strings.Contains(err.Error(), c.what) {
			t.Errorf("Tree(%s) error = %v; want one naming %s as a %s", c.root, err, c.path, c.what)
		}
	}
	if _, err := File(fifo, nil); err == nil || !strings.Contains(err.Error(), "fifo") {
		t.Errorf("File(fifo) error = %v; want one saying it is a fifo", err)
	}
}

func TestFile(t *testing.T) {
	dir := build(t, file("a", "alpha"), link("ln", "a"), folder("sub"))
	for _, p := range []string{"a", "ln"} {
		d, err := File(filepath.Join(dir, p), nil)
		if err != nil || d != Bytes([]byte("alpha")) {
			t.Errorf("File(%s) = %s, %v; want %s", p, d, err, Bytes([]byte("alpha")))
		}
	}
	if _, err := File(filepath.Join(dir, "sub"), nil); err == nil {
		t.Error("File(folder): want an error")
	}
}

func write(t *testing.T, dir, rel, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, rel), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func rename(t *testing.T, dir, from, to string) {
	t.Helper()
	if err := os.Rename(filepath.Join(dir, from), filepath.Join(dir, to)); err != nil {
		t.Fatal(err)
	}
}

func chmod(t *testing.T, dir, rel string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(filepath.Join(dir, rel), mode); err != nil {
		t.Fatal(err)
	}
}

func remove(t *testing.T, dir, rel string) {
	t.Helper()
	if err := os.Remove(filepath.Join(dir, rel)); err != nil {
		t.Fatal(err)
	}
}

func relink(t *testing.T, dir, rel, target string) {
	t.Helper()
	remove(t, dir, rel)
	create(t, dir, link(rel, target))
}

// TestStatPrint: any write under the path changes the print, also one that
// puts the old content back; reading does not.
func TestStatPrint(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "d", "x.txt")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("v1"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{file, dir} {
		before, newest, err := StatPrint(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.ReadFile(file); err != nil {
			t.Fatal(err)
		}
		if again, _, _ := StatPrint(p); again != before {
			t.Errorf("%s: reading changed the print", p)
		}
		// The writes below must fall in a later tick of the kernel's
		// coarse clock than the file's last change.
		for !time.Now().After(newest.Add(20 * time.Millisecond)) {
			time.Sleep(time.Millisecond)
		}
		if err := os.WriteFile(file, []byte("v2"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte("v1"), 0o644); err != nil {
			t.Fatal(err)
		}
		if after, _, _ := StatPrint(p); after == before {
			t.Errorf("%s: a rewrite to the same content left the print as it was", p)
		}
	}
}
