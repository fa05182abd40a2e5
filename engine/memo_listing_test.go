package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/memo"
	"github.com/kilnbuild/kiln/providers/exec"
)

// listedPipeline builds a one-node pipeline and plans it again once its run
// folder is older than the stat cache's racy window, so that the no-change
// memo records the folder's listing. It returns the options and the
// run folder.
func listedPipeline(t *testing.T) (Options, string) {
	t.Helper()
	dir := t.TempDir()
	hcl := "exec \"a\" {\n  command = \"echo one > $KILN_OUT/x; echo two > $KILN_OUT/y\"\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "pipeline.hcl"), []byte(hcl), 0o644); err != nil {
		t.Fatal(err)
	}
	o := Options{Path: dir, Kinds: []kind.Kind{exec.New()}}
	w, diags, err := Open(o)
	if err != nil || diags.HasErrors() {
		t.Fatalf("open: %v %s", err, diags.Error())
	}
	if _, err := w.Apply(context.Background(), ApplyOptions{Parallelism: 1}); err != nil {
		t.Fatal(err)
	}
	// A folder changed less than the racy window ago is never listed.
	time.Sleep(2100 * time.Millisecond)
	if w, diags, err = Open(o); err != nil || diags.HasErrors() {
		t.Fatalf("open: %v %s", err, diags.Error())
	}
	if pl, diags := w.Plan(context.Background()); diags.HasErrors() || pl.HasChanges() {
		t.Fatalf("plan after the apply: changes %v, %s", pl.HasChanges(), diags.Error())
	}
	c, ok := memo.Read(filepath.Join(dir, ".kiln"))
	if !ok {
		t.Fatal("the memo does not decode")
	}
	if len(c.Nodes) != 1 || c.Nodes[0].Listing == nil || len(c.Nodes[0].Listing.Entries) != 2 {
		t.Fatalf("memo nodes %+v: want one node with the listing of its run folder (x, y)", c.Nodes)
	}
	if _, ok := QuickCheck(o); !ok {
		t.Fatal("QuickCheck: not up to date right after a plan without changes")
	}
	// That check sealed the run folder: the tests below change it under
	// its seal.
	if c, ok = memo.Read(filepath.Join(dir, ".kiln")); !ok || !c.Nodes[0].Sealed || len(c.Nodes[0].Seal) != 2 {
		t.Fatalf("memo after a check that held: %+v; want the run folder sealed (the stamps of x and y)", c)
	}
	return o, w.store.RunPath(c.Nodes[0].Entry)
}

// TestQuickCheckListingSeesChangesInTheRunFolder: a run folder whose listing
// the memo took from its stat is still re-checked file by file, so an
// edit, a new file, a removed file or a changed mode is noticed.
func TestQuickCheckListingSeesChangesInTheRunFolder(t *testing.T) {
	for name, change := range map[string]func(run string) error{
		// Same size, same folder signature: only the file's own stat shows it.
		"edit": func(run string) error { return os.WriteFile(filepath.Join(run, "x"), []byte("ONE\n"), 0o644) },
		"edit, mtime set back": func(run string) error {
			p := filepath.Join(run, "x")
			info, err := os.Stat(p)
			if err != nil {
				return err
			}
			if err := os.WriteFile(p, []byte("ONE\n"), 0o644); err != nil {
				return err
			}
			return os.Chtimes(p, info.ModTime(), info.ModTime())
		},
		"add":    func(run string) error { return os.WriteFile(filepath.Join(run, "z"), nil, 0o644) },
		"remove": func(run string) error { return os.Remove(filepath.Join(run, "y")) },
		"mode":   func(run string) error { return os.Chmod(filepath.Join(run, "x"), 0o755) },
		"subfolder": func(run string) error {
			return os.Mkdir(filepath.Join(run, "d"), 0o755)
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			o, run := listedPipeline(t)
			if err := change(run); err != nil {
				t.Fatal(err)
			}
			if _, ok := QuickCheck(o); ok {
				t.Fatalf("QuickCheck says up to date after the %s in the run folder %s", name, run)
			}
		})
	}
}

// TestQuickCheckSealBrokenByATouchStillHolds: a file touched in a sealed
// run folder, its content unchanged, breaks the seal but not the answer:
// the check falls back to the stat cache and the digest, which hold.
func TestQuickCheckSealBrokenByATouchStillHolds(t *testing.T) {
	o, run := listedPipeline(t)
	now := time.Now()
	if err := os.Chtimes(filepath.Join(run, "x"), now, now); err != nil {
		t.Fatal(err)
	}
	if _, ok := QuickCheck(o); !ok {
		t.Fatal("QuickCheck: not up to date after a file of the run folder was touched, its content unchanged")
	}
	// Once the touch is older than the racy window, the next check seals
	// the folder again; the one after that has nothing to add and leaves
	// the memo as it is.
	time.Sleep(2100 * time.Millisecond)
	if _, ok := QuickCheck(o); !ok {
		t.Fatal("QuickCheck: not up to date on the unchanged pipeline")
	}
	path := memo.Path(filepath.Join(o.Path, ".kiln"))
	if c, ok := memo.Read(filepath.Join(o.Path, ".kiln")); !ok || !c.Nodes[0].Sealed {
		t.Fatalf("memo after the touch settled: %+v; want the run folder sealed again", c)
	}
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := QuickCheck(o); !ok {
		t.Fatal("QuickCheck: not up to date on the unchanged pipeline")
	}
	if after, err := os.Stat(path); err != nil || !os.SameFile(before, after) {
		t.Errorf("the memo was written again by a check that had nothing to add (%v)", err)
	}
}
