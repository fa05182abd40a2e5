package hash

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestManifest(t *testing.T) {
	dir := build(t, file("b", "bee"), exe("a/run", "go"), link("c", "b"), folder("d"))
	want := []Entry{
		{Path: "a", Kind: 'd'},
		{Path: "a/run", Kind: 'f', Exec: true, Size: 2, Digest: Bytes([]byte("go"))},
		{Path: "b", Kind: 'f', Size: 3, Digest: Bytes([]byte("bee"))},
		{Path: "c", Kind: 'l', Target: "b"},
		{Path: "d", Kind: 'd'},
	}
	got, err := Manifest(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Manifest (-want +got):\n%s", diff)
	}
}

func TestDiffManifests(t *testing.T) {
	shared := []node{file("README", "r"), file("src/a.go", "a"), exe("bin/tool", "t"), link("ln", "README")}
	cases := []struct {
		name string
		a, b []node
		want []string
	}{
		{"equal", shared, shared, nil},
		{"one file content", shared, append(shared[:1:1], file("src/a.go", "A"), shared[2], shared[3]), []string{"src/a.go"}},
		{"one exec bit", shared, append(shared[:2:2], file("bin/tool", "t"), shared[3]), []string{"bin/tool"}},
		{"only in a", append(shared, file("extra", "x")), shared, []string{"extra"}},
		{"only in b", shared, append(shared, folder("logs"), file("src/b.go", "b")), []string{"logs", "src/b.go"}},
		{"symlink target", shared, append(shared[:3:3], link("ln", "src")), []string{"ln"}},
		{"file becomes folder", shared, append(shared[:3:3], folder("ln")), []string{"ln"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, err := Manifest(build(t, c.a...), nil)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Manifest(build(t, c.b...), nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, DiffManifests(a, b)); diff != "" {
				t.Errorf("DiffManifests(a, b) (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.want, DiffManifests(b, a)); diff != "" {
				t.Errorf("DiffManifests(b, a) (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEntriesDigestIsTree(t *testing.T) {
	dir := build(t, file("b", "bee"), exe("a/run", "go"), link("c", "b"), folder("d"), file("sp ace", ""))
	entries, err := Manifest(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := Tree(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := EntriesDigest(entries); got != tree {
		t.Errorf("EntriesDigest = %s, Tree = %s", got, tree)
	}
	entries[1].Exec = !entries[1].Exec
	if EntriesDigest(entries) == tree {
		t.Error("EntriesDigest ignores the exec bit")
	}
}
