package hash

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var follow = TreeOptions{FollowLinks: true}

// TestFollowLinksLines pins the lines of followed links: the link's text
// and what it leads to, a file's exec bit, size and content digest or a
// folder's tree digest.
func TestFollowLinksLines(t *testing.T) {
	ext := build(t, file("t.txt", "target"), file("set/a", "A"), link("set/up", "../t.txt"))
	dir := build(t,
		file("own.txt", "own"),
		link("data.txt", filepath.Join(ext, "t.txt")),
		link("set", filepath.Join(ext, "set")),
		link("sp ace", "own.txt"),
	)
	sum := func(s string) string { return Bytes([]byte(s)).String() }
	setLines := []string{"f a - 1 " + sum("A"), "L up ../t.txt f - 6 " + sum("target")}
	want := []string{
		"L data.txt " + filepath.Join(ext, "t.txt") + " f - 6 " + sum("target"),
		"f own.txt - 3 " + sum("own"),
		"L set " + filepath.Join(ext, "set") + " d " + Lines(setLines...).String(),
		`L "sp ace" own.txt f - 3 ` + sum("own"),
	}
	entries, err := manifest(dir, nil, follow)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.line())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("followed tree lines (-want +got):\n%s", diff)
	}
	if d := mustTree(t, dir, nil, follow); d != Lines(want...) {
		t.Errorf("TreeWith(FollowLinks) = %s, want the hash of the lines", d)
	}
	root := filepath.Join(dir, "data.txt")
	if d := mustTree(t, root, nil, follow); d != Lines("L . "+filepath.Join(ext, "t.txt")+" f - 6 "+sum("target")) {
		t.Errorf("TreeWith(link root, FollowLinks) = %s, want one L line", d)
	}
	// Without FollowLinks the same tree has its plain link lines.
	if d := mustTree(t, root, nil, TreeOptions{}); d != Lines("l . "+filepath.Join(ext, "t.txt")) {
		t.Errorf("Tree(link root) = %s, want the plain l line", d)
	}
}

// TestFollowLinksWithoutLinks: a tree without links has the same digest
// with FollowLinks or without, so inputs without links keep their keys.
func TestFollowLinksWithoutLinks(t *testing.T) {
	dir := build(t, file("README", "readme"), file("src/main.go", "package main"), exe("bin/tool", "x"), folder("empty"))
	if a, b := mustTree(t, dir, nil, TreeOptions{}), mustTree(t, dir, nil, follow); a != b {
		t.Errorf("digest with FollowLinks %s, without %s: want the same", b, a)
	}
	f := filepath.Join(dir, "README")
	if a, b := mustTree(t, f, nil, TreeOptions{}), mustTree(t, f, nil, follow); a != b {
		t.Errorf("file digest with FollowLinks %s, without %s: want the same", b, a)
	}
}

// TestFollowLinksChanges: editing what a link leads to changes the
// followed digest (and never the plain one), so does pointing the link
// at another file with the same content; through a warm stat cache too,
// even when the edit keeps the target's size and mtime.
func TestFollowLinksChanges(t *testing.T) {
	ext := build(t, file("t.txt", "v1"), file("copy.txt", "v1"), file("set/a", "A"))
	dir := build(t, link("in/data.txt", filepath.Join(ext, "t.txt")), link("in/set", filepath.Join(ext, "set")))
	in := filepath.Join(dir, "in")
	c := NewStatCache()
	waitOutRacyWindow()
	plain := mustTree(t, in, c, TreeOptions{})
	before := mustTree(t, in, c, follow)
	if again := mustTree(t, in, c, follow); again != before {
		t.Fatalf("a second hash through the cache gave %s, want %s", again, before)
	}
	edits := []struct {
		name string
		edit func()
	}{
		{"the target file edited in place, size and mtime kept", func() { rewriteKeepingTimes(t, filepath.Join(ext, "t.txt"), "v2") }},
		{"a file inside a linked folder edited", func() { rewriteKeepingTimes(t, filepath.Join(ext, "set", "a"), "B") }},
		{"the link pointed at a copy", func() { relink(t, in, "data.txt", filepath.Join(ext, "copy.txt")) }},
	}
	for _, e := range edits {
		e.edit()
		after := mustTree(t, in, c, follow)
		if after == before {
			t.Errorf("%s: the followed digest did not change", e.name)
		}
		before = after
		if got := mustTree(t, in, c, TreeOptions{}); e.name != "the link pointed at a copy" && got != plain {
			t.Errorf("%s: the plain digest changed; results must never follow links", e.name)
		}
	}
}

// rewriteKeepingTimes writes content of the same size to path and sets
// its mtime back: only its ctime tells.
func rewriteKeepingTimes(t *testing.T, path, content string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // a later tick of the coarse clock
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
}

// TestFollowLinksRefused: a link that dangles or loops is a *LinkError,
// one to a device or a FIFO a *NotRegularError naming the link, as the
// root or inside a folder; without FollowLinks they are plain link lines.
func TestFollowLinksRefused(t *testing.T) {
	other := build(t, link("back", ".."))
	dir := build(t,
		link("dangling", "nowhere"),
		link("self", "self"),
		link("a", "b"), link("b", "a"),
		link("up/here", "."),
		link("up2/x/top", "../.."),
		link("mutual", other),
		link("zero", "/dev/zero"),
		file("fifo-dir/keep", "k"),
		link("pipe", "fifo-dir/p"),
	)
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo-dir", "p"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path string
		link string // the link the error names, relative
		loop bool
		what string // for a *NotRegularError
	}{
		{"dangling", "dangling", false, ""},
		{"self", "self", true, ""},
		{"a", "a", true, ""},
		{"up", "up/here", true, ""},
		{"up2", "up2/x/top", true, ""},
		{"mutual", "", true, ""}, // other/back leads to the folder holding mutual
		{"zero", "zero", false, "a character device"},
		{"pipe", "pipe", false, "a named pipe (fifo)"},
		{"fifo-dir", "fifo-dir/p", false, "a named pipe (fifo)"},
	}
	for _, c := range cases {
		p := filepath.Join(dir, c.path)
		_, err := TreeWith(p, nil, follow)
		var le *LinkError
		var nr *NotRegularError
		switch {
		case c.what != "":
			if !errors.As(err, &nr) || nr.What() != c.what || nr.Path != filepath.Join(dir, c.link) {
				t.Errorf("%s: error %v, want a *NotRegularError: %s is %s", c.path, err, c.link, c.what)
			}
		case !errors.As(err, &le) || le.Loop != c.loop || c.link != "" && le.Path != filepath.Join(dir, c.link):
			t.Errorf("%s: error %v, want a *LinkError at %s, loop %v", c.path, err, c.link, c.loop)
		}
		if _, _, err := StatPrintFollow(p); err == nil && c.what == "" {
			t.Errorf("StatPrintFollow(%s): no error, want one for a link that leads nowhere", c.path)
		}
		if c.what == "" {
			if _, err := TreeWith(p, nil, TreeOptions{}); err != nil {
				t.Errorf("Tree(%s) without FollowLinks: %v, want a plain link line", c.path, err)
			}
		}
	}
}

// TestStatPrintFollow: the print moves when what a link leads to is
// written or the link is pointed elsewhere; StatPrint's does not see the
// target.
func TestStatPrintFollow(t *testing.T) {
	ext := build(t, file("t.txt", "v1"), file("set/a", "A"), file("copy.txt", "v1"))
	dir := build(t, link("in/data.txt", filepath.Join(ext, "t.txt")), link("in/set", filepath.Join(ext, "set")))
	in := filepath.Join(dir, "in")
	before, _, err := StatPrintFollow(in)
	if err != nil {
		t.Fatal(err)
	}
	plain, _, _ := StatPrint(in)
	rewriteKeepingTimes(t, filepath.Join(ext, "set", "a"), "B")
	after, _, err := StatPrintFollow(in)
	if err != nil || after == before {
		t.Errorf("a file in a linked folder written: print %s, %v; want a new one", after, err)
	}
	if p, _, _ := StatPrint(in); p != plain {
		t.Error("StatPrint saw a write behind a link; it must not follow")
	}
	before = after
	relink(t, in, "data.txt", filepath.Join(ext, "copy.txt"))
	if after, _, _ := StatPrintFollow(in); after == before {
		t.Error("a link pointed elsewhere: the print did not change")
	}
	root := filepath.Join(in, "data.txt")
	before, _, _ = StatPrintFollow(root)
	rewriteKeepingTimes(t, filepath.Join(ext, "copy.txt"), "v3")
	if after, _, _ := StatPrintFollow(root); after == before {
		t.Error("the file a root link leads to written: the print did not change")
	}
}
