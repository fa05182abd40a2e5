package run

import (
	"os"
	"path/filepath"
	"testing"
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
