package hash

import (
	"os"
	"path/filepath"
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
