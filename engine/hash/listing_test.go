package hash

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// TestListingStandsForTheFolderWhileItsStatHolds: a listing gives the same
// tree digest as reading the folder, before and after the folder changes,
// and is refused for a racy folder or one with a subfolder.
func TestListingStandsForTheFolderWhileItsStatHolds(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{"a": "one\n", "b": "two\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("a", filepath.Join(dir, "l")); err != nil {
		t.Fatal(err)
	}
	if _, ok := ListFolder(dir); ok {
		t.Error("ListFolder listed a folder changed just now: its signature may not change with its next entry")
	}
	later := time.Now().Add(2 * racyWindow)
	l, ok := listFolder(dir, later)
	if !ok || len(l.Entries) != 3 {
		t.Fatalf("listFolder = %+v, %v; want the three entries", l, ok)
	}
	same := func(what string) {
		t.Helper()
		want, err := Tree(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := TreeWith(dir, nil, TreeOptions{Listing: l})
		if err != nil || got != want {
			t.Errorf("%s: tree with the listing %v, %v; read %v", what, got, err, want)
		}
	}
	same("unchanged")
	info, err := os.Lstat(dir)
	if err != nil || !l.vouches(info) {
		t.Fatalf("the listing does not vouch for its unchanged folder (%v)", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a"), []byte("ONE\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	same("a edited in place")
	if err := os.WriteFile(filepath.Join(dir, "c"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	same("c added")
	if info, err = os.Lstat(dir); err != nil || l.vouches(info) {
		t.Fatalf("the listing vouches for its folder after a file was added (%v)", err)
	}
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, ok := listFolder(dir, later); ok {
		t.Error("listFolder listed a folder with a subfolder")
	}
}

// TestTreeListsTheFolderItReads: the tree digest of a folder it reads
// gives Listed what ListFolder returns, and nothing for a folder changed
// too recently, one with a subfolder, or one a listing vouched for.
func TestTreeListsTheFolderItReads(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a", "b"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("a", filepath.Join(dir, "l")); err != nil {
		t.Fatal(err)
	}
	listed := func(o TreeOptions) *Listing {
		t.Helper()
		var got *Listing
		o.Listed = func(l *Listing) { got = l }
		if _, err := TreeWith(dir, nil, o); err != nil {
			t.Fatal(err)
		}
		return got
	}
	if l := listed(TreeOptions{}); l != nil {
		t.Errorf("listed a folder changed just now: %+v", l)
	}
	waitOutRacyWindow()
	want, ok := ListFolder(dir)
	if !ok {
		t.Fatal("ListFolder refused the settled folder")
	}
	if got := listed(TreeOptions{}); !reflect.DeepEqual(got, want) {
		t.Errorf("listed %+v, ListFolder %+v", got, want)
	}
	if got := listed(TreeOptions{Listing: want}); got != nil {
		t.Errorf("listed a folder the listing vouched for: %+v", got)
	}
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	waitOutRacyWindow()
	if got := listed(TreeOptions{}); got != nil {
		t.Errorf("listed a folder with a subfolder: %+v", got)
	}
}
