package run

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kilnbuild/kiln/engine/state"
)

func TestResolveLinkFollowsAReplacedLink(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"a", "b"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(dir, "out")
	point := func(to string) {
		t.Helper()
		tmp := link + ".new"
		if err := os.Symlink(to, tmp); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, link); err != nil {
			t.Fatal(err)
		}
	}
	want := func(to string) {
		t.Helper()
		real, err := filepath.EvalSymlinks(filepath.Join(dir, to))
		if err != nil {
			t.Fatal(err)
		}
		for range 2 { // the second answer is the remembered one
			got, err := resolveLink(link)
			if err != nil || got != real {
				t.Fatalf("resolveLink(%s) = %q, %v; want %q", link, got, err, real)
			}
		}
	}
	point("a")
	want("a")
	point("b") // as kiln replaces a stable link: a new link renamed over it
	want("b")
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if got, err := resolveLink(link); err == nil {
		t.Fatalf("resolveLink of a removed link = %q, want an error", got)
	}
}

// An apply finds an upstream's folder again by its record: a new entry (a
// rebuilt result) follows the link anew, and a link that leads elsewhere
// than its record says is followed every time, never remembered.
func TestResultFolderFollowsTheRecord(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"k1-r1", "k1-r2", "other"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(dir, "out")
	point := func(to string) {
		t.Helper()
		_ = os.Remove(link)
		if err := os.Symlink(filepath.Join(dir, to), link); err != nil {
			t.Fatal(err)
		}
	}
	a := &Applier{}
	check := func(entry, want string) {
		t.Helper()
		got, err := a.resultFolder(link, &state.Record{Entry: entry})
		if err != nil || got != filepath.Join(dir, want) {
			t.Fatalf("resultFolder with entry %s = %q, %v; want %s", entry, got, err, want)
		}
	}
	point("k1-r1")
	check("k1-r1", "k1-r1")
	point("k1-r2")
	check("k1-r2", "k1-r2") // the record moved on: followed again
	point("other")
	check("k1-r3", "other") // link and record disagree: not remembered
	point("k1-r1")
	check("k1-r3", "k1-r1")
}
