package engine

import (
	"bytes"
	"context"
	"encoding/gob"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/providers/exec"
)

// listedPipeline builds a one-node pipeline and plans it again once its run
// folder is older than the stat cache's racy window, so that the no-change
// certificate records the folder's listing. It returns the options and the
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
	b, err := os.ReadFile(quickPath(filepath.Join(dir, ".kiln")))
	if err != nil {
		t.Fatal(err)
	}
	var c quickCert
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&c); err != nil {
		t.Fatal(err)
	}
	if len(c.Nodes) != 1 || c.Nodes[0].Listing == nil || len(c.Nodes[0].Listing.Entries) != 2 {
		t.Fatalf("certificate nodes %+v: want one node with the listing of its run folder (x, y)", c.Nodes)
	}
	if _, ok := QuickCheck(o); !ok {
		t.Fatal("QuickCheck: not up to date right after a plan without changes")
	}
	return o, w.store.RunPath(c.Nodes[0].Entry)
}

// TestQuickCheckListingSeesChangesInTheRunFolder: a run folder whose listing
// the certificate took from its stat is still re-checked file by file, so an
// edit, a new file, a removed file or a changed mode is noticed.
func TestQuickCheckListingSeesChangesInTheRunFolder(t *testing.T) {
	for name, change := range map[string]func(run string) error{
		// Same size, same folder signature: only the file's own stat shows it.
		"edit":   func(run string) error { return os.WriteFile(filepath.Join(run, "x"), []byte("ONE\n"), 0o644) },
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
