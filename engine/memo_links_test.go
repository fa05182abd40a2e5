package engine

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/memo"
	"github.com/kilnbuild/kiln/engine/state"
	"github.com/kilnbuild/kiln/providers/exec"
)

func readCert(t *testing.T, stateDir string) memo.Memo {
	t.Helper()
	c, ok := memo.Read(stateDir)
	if !ok {
		t.Fatal("the memo does not read")
	}
	return *c
}

// settledPipeline applies a two-node pipeline and checks it twice: right
// after the apply, when the links folder has just changed and its stamp may
// not be trusted, and once that folder is older than the racy window, when
// the check records the stamp in the memo.
func settledPipeline(t *testing.T) (o Options, stateDir string) {
	t.Helper()
	dir := t.TempDir()
	hcl := "exec \"a\" {\n  command = \"echo a > $KILN_OUT/x\"\n}\n\nexec \"b\" {\n  command = \"cat ${exec.a.out}/x > $KILN_OUT/y\"\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "pipeline.hcl"), []byte(hcl), 0o644); err != nil {
		t.Fatal(err)
	}
	o = Options{Path: dir, Kinds: []kind.Kind{exec.New()}}
	w, diags, err := Open(o)
	if err != nil || diags.HasErrors() {
		t.Fatalf("open: %v %s", err, diags.Error())
	}
	if _, err := w.Apply(context.Background(), ApplyOptions{Parallelism: 1}); err != nil {
		t.Fatal(err)
	}
	stateDir = filepath.Join(dir, ".kiln")
	if _, ok := QuickCheck(o); !ok {
		t.Fatal("QuickCheck: not up to date right after the apply")
	}
	if c := readCert(t, stateDir); c.Links != nil {
		t.Fatalf("the memo trusts the links folder's stamp %+v taken right after links were made in it: a link replaced within the same timestamp tick would go unnoticed", *c.Links)
	}
	time.Sleep(2100 * time.Millisecond)
	if _, ok := QuickCheck(o); !ok {
		t.Fatal("QuickCheck: not up to date on the unchanged pipeline")
	}
	c := readCert(t, stateDir)
	if c.Links == nil {
		t.Fatal("the memo has no stamp of the links folder after a check that held, with the folder unchanged for longer than the racy window")
	}
	if now, ok := hash.StampOf(filepath.Join(stateDir, "out")); !ok || now != *c.Links {
		t.Fatalf("the memo's links stamp %+v is not the folder's %+v", *c.Links, now)
	}
	if _, ok := QuickCheck(o); !ok {
		t.Fatal("QuickCheck: not up to date with the links trusted by their folder's stamp")
	}
	return o, stateDir
}

// TestQuickCheckNoticesARetargetedLinkWhileTrustingTheFolder: once the
// memo trusts the links folder's stamp, a link pointed at another
// run folder — holding the very same files — is still noticed, also when
// the folder's mtime is set back to the stamp's (its ctime moves anyway).
func TestQuickCheckNoticesARetargetedLinkWhileTrustingTheFolder(t *testing.T) {
	for name, keepMtime := range map[string]bool{"plain": false, "mtime set back": true} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			o, stateDir := settledPipeline(t)
			c := readCert(t, stateDir)
			store := state.OpenStore(stateDir)
			var n *memo.Node
			for i := range c.Nodes {
				if c.Nodes[i].Link == "exec.a" {
					n = &c.Nodes[i]
				}
			}
			if n == nil {
				t.Fatalf("no node exec.a in the memo: %+v", c.Nodes)
			}
			key, _, _ := state.ParseEntry(n.Entry)
			entry, run, err := store.NewRun(key)
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(filepath.Join(store.RunPath(n.Entry), "x"))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(run, "x"), data, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := store.Link(n.Link, entry); err != nil {
				t.Fatal(err)
			}
			if keepMtime {
				mtime := time.Unix(0, c.Links.Mtime)
				if err := os.Chtimes(store.LinksDir(), mtime, mtime); err != nil {
					t.Fatal(err)
				}
			}
			if _, ok := QuickCheck(o); ok {
				t.Fatalf("QuickCheck says up to date after %s was pointed at %s instead of %s", n.Link, entry, n.Entry)
			}
		})
	}
}

// TestQuickCheckNoticesAnEditUnderTheConfigSeal: once settled, the
// pipeline file is sealed by its stamp (and hashed through the stat cache
// when the seal breaks), and an edit that keeps its size and sets its
// mtime back is still noticed.
func TestQuickCheckNoticesAnEditUnderTheConfigSeal(t *testing.T) {
	o, stateDir := settledPipeline(t)
	path := filepath.Join(o.Path, "pipeline.hcl")
	if c := readCert(t, stateDir); len(c.Sources) == 0 || c.Sources[0].Path != path {
		t.Fatalf("memo sources %+v: want the pipeline file sealed", c.Sources)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(b, []byte("echo a"), []byte("echo A"), 1)
	if err := os.WriteFile(path, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	if _, ok := QuickCheck(o); ok {
		t.Fatal("QuickCheck says up to date after the pipeline file was edited (same size, mtime set back)")
	}
}

// TestQuickCheckNoticesAnEditUnderAnInputSeal: once the memo seals
// a node's input file by its stamp, an edit that keeps the file's size and
// sets its mtime back is still noticed.
func TestQuickCheckNoticesAnEditUnderAnInputSeal(t *testing.T) {
	dir := t.TempDir()
	hcl := "exec \"a\" {\n  inputs  = [\"in.txt\"]\n  command = \"cat in.txt > $KILN_OUT/x\"\n}\n"
	for name, content := range map[string]string{"pipeline.hcl": hcl, "in.txt": "one\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	o := Options{Path: dir, Kinds: []kind.Kind{exec.New()}}
	w, diags, err := Open(o)
	if err != nil || diags.HasErrors() {
		t.Fatalf("open: %v %s", err, diags.Error())
	}
	if _, err := w.Apply(context.Background(), ApplyOptions{Parallelism: 1}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2100 * time.Millisecond)
	if _, ok := QuickCheck(o); !ok {
		t.Fatal("QuickCheck: not up to date on the unchanged pipeline")
	}
	c := readCert(t, filepath.Join(dir, ".kiln"))
	if len(c.Nodes) != 1 || len(c.Nodes[0].InputSeals) != 1 || c.Nodes[0].InputSeals[0] == (hash.Stamp{}) || !c.Nodes[0].Sealed {
		t.Fatalf("memo nodes %+v: want exec.a's input and run folder sealed", c.Nodes)
	}
	path := filepath.Join(dir, "in.txt")
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	if _, ok := QuickCheck(o); ok {
		t.Fatal("QuickCheck says up to date after the input was edited (same size, mtime set back)")
	}
}
