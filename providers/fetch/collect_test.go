package fetch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/kind"
)

// TestRefusedExtractionIsMarked: the verified archive whose extraction was
// refused stays for a later build with other limits, marked so kiln gc
// removes it; a build that extracts it leaves nothing behind.
func TestRefusedExtractionIsMarked(t *testing.T) {
	archive := tarGz(t, []entry{{name: "/tmp/evil", body: "pwned"}})
	f, kb := serveArchive(t, "evil.tgz", archive, "")
	if _, err := build(t, f, kb.b); err == nil {
		t.Fatal("Build extracted an archive with an absolute entry")
	}
	p := partialPath(kb.b.State, attrString(kb.b, "url"))
	if readFile(t, p) != string(archive) {
		t.Fatal("the verified download is gone")
	}
	contains(t, "refusal note", readFile(t, p+refusedSuffix), "absolute")
	left, err := f.Collect(kb.b.State, kind.CollectOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []kind.Leftover{{Path: filepath.Join("fetch", "partial", filepath.Base(p)), Why: "a download whose extraction was refused"}}
	if diff := cmp.Diff(want, left, ignoreSize); diff != "" {
		t.Errorf("Collect (-want +got):\n%s", diff)
	}

	good := tarGz(t, goodEntries)
	f, kb = serveArchive(t, "good.tgz", good, "")
	if _, err := build(t, f, kb.b); err != nil {
		t.Fatal(err)
	}
	p = partialPath(kb.b.State, attrString(kb.b, "url"))
	mustNotExist(t, p)
	mustNotExist(t, p+refusedSuffix)
}

// TestCollectPartialDownloads is the rule of Collect: refused ones and
// orphans go at once, interrupted ones once no byte came for ResumeFor (or
// -older-than), other files stay, and a dry run removes nothing.
func TestCollectPartialDownloads(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	name := func(c byte) string { return strings.Repeat(string(c), 64) }
	files := []struct {
		name string
		age  time.Duration
	}{
		{name('a'), time.Hour}, {name('a') + refusedSuffix, time.Hour}, // refused, young
		{name('b') + validatorSuffix, time.Hour},                                 // orphan validator
		{name('c'), 2 * time.Hour}, {name('c') + validatorSuffix, 2 * time.Hour}, // interrupted, young
		{name('d'), 9 * 24 * time.Hour}, // interrupted 9 days ago
		{"notes.txt", 30 * 24 * time.Hour},
	}
	setup := func(t *testing.T) (state, dir string) {
		state = t.TempDir()
		dir = filepath.Join(state, "fetch", "partial")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			p := filepath.Join(dir, f.name)
			if err := os.WriteFile(p, []byte("12345"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(p, now.Add(-f.age), now.Add(-f.age)); err != nil {
				t.Fatal(err)
			}
		}
		return state, dir
	}
	rel := func(n string) string { return filepath.Join("fetch", "partial", n) }
	tests := []struct {
		name string
		o    kind.CollectOptions
		want []kind.Leftover
	}{
		{"default", kind.CollectOptions{Now: now}, []kind.Leftover{
			{Path: rel(name('a')), Size: 10, Why: "a download whose extraction was refused"},
			{Path: rel(name('b')), Size: 5, Why: "what a finished download left"},
			{Path: rel(name('c')), Size: 10, Kept: true, Why: "an interrupted download (5 B), kept to resume: its last byte came 2 hours ago, gc removes it after 7 days"},
			{Path: rel(name('d')), Size: 5, Why: "an interrupted download whose last byte came 9 days ago"},
		}},
		{"older than an hour", kind.CollectOptions{Now: now, OlderThan: 90 * time.Minute}, []kind.Leftover{
			{Path: rel(name('a')), Size: 10, Why: "a download whose extraction was refused"},
			{Path: rel(name('b')), Size: 5, Why: "what a finished download left"},
			{Path: rel(name('c')), Size: 10, Why: "an interrupted download whose last byte came 2 hours ago"},
			{Path: rel(name('d')), Size: 5, Why: "an interrupted download whose last byte came 9 days ago"},
		}},
	}
	for _, tt := range tests {
		for _, dry := range []bool{true, false} {
			t.Run(tt.name+map[bool]string{true: "/dry run", false: ""}[dry], func(t *testing.T) {
				state, dir := setup(t)
				o := tt.o
				o.DryRun = dry
				got, err := (&Fetch{}).Collect(state, o)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("Collect (-want +got):\n%s", diff)
				}
				for _, f := range files {
					_, err := os.Stat(filepath.Join(dir, f.name))
					gone := true
					for _, l := range tt.want {
						if strings.HasPrefix(f.name, filepath.Base(l.Path)) && l.Kept || f.name == "notes.txt" {
							gone = false
						}
					}
					if exists := err == nil; exists == (gone && !dry) {
						t.Errorf("%s exists = %v after Collect (dry run %v)", f.name, exists, dry)
					}
				}
			})
		}
	}
	if got, err := (&Fetch{}).Collect(t.TempDir(), kind.CollectOptions{}); err != nil || got != nil {
		t.Errorf("Collect without partial downloads = %v, %v", got, err)
	}
}

var ignoreSize = cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Size" }, cmp.Ignore())

// attrString is the string attribute name of the build's configuration.
func attrString(b *kind.Build, name string) string { return b.Config.GetAttr(name).AsString() }
