package plan

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/hash"
)

func symlink(t *testing.T, target, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	_ = os.Remove(path)
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

// inputKeyLine is the input line of the key of exec.a, decided afresh.
func inputKeyLine(t *testing.T, dir, subject string) string {
	t.Helper()
	dec := decideWith(t, openDecider(t, dir), "exec.a", nil)
	for _, l := range dec.KeyLines {
		if l.Label == "input" && l.Subject == subject {
			return l.Show()
		}
	}
	t.Fatalf("no input line for %s in %q", subject, dec.KeyLines)
	return ""
}

// TestInputLinksAreFollowed: an input that is a symlink to a file outside
// the pipeline, or a folder input holding one, has a key that changes when
// the file the link leads to is edited (also keeping its size and mtime,
// through the stat cache) and when the link is pointed at a copy; without
// links an input's digest is DigestPath's, as before.
func TestInputLinksAreFollowed(t *testing.T) {
	ext := t.TempDir()
	writeFiles(t, ext, map[string]string{"t.txt": "v1", "copy.txt": "v1", "set/x.txt": "x"})
	for _, in := range []string{"data.txt", "set"} {
		t.Run(in, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"pipeline.hcl": `exec "a" {
  command = "true"
  inputs  = ["` + in + `"]
}
`})
			link := filepath.Join(dir, "data.txt")
			if in == "set" {
				writeFiles(t, dir, map[string]string{"set/own.txt": "own"})
				link = filepath.Join(dir, "set", "data.txt")
				symlink(t, filepath.Join(ext, "set"), filepath.Join(dir, "set", "linked"))
			}
			symlink(t, filepath.Join(ext, "t.txt"), link)
			before := inputKeyLine(t, dir, in)
			if got := inputKeyLine(t, dir, in); got != before {
				t.Fatalf("the same input gave %q, then %q", before, got)
			}
			writeFiles(t, ext, map[string]string{"t.txt": "v2"})
			edited := inputKeyLine(t, dir, in)
			if edited == before {
				t.Errorf("editing the file the link leads to left the key line %q", before)
			}
			symlink(t, filepath.Join(ext, "copy.txt"), link)
			writeFiles(t, ext, map[string]string{"t.txt": "v1"})
			if got := inputKeyLine(t, dir, in); got == before || got == edited {
				t.Errorf("pointing the link at a copy left the key line %q", got)
			}
		})
	}
	// A warm stat cache: an edit that keeps size and mtime is seen by the
	// change time of the file the link leads to.
	dir := t.TempDir()
	symlink(t, filepath.Join(ext, "t.txt"), filepath.Join(dir, "data.txt"))
	c := hash.NewStatCache()
	time.Sleep(2100 * time.Millisecond) // past the racy window: cached
	p := filepath.Join(dir, "data.txt")
	before, err := InputDigest(p, c)
	if err != nil {
		t.Fatal(err)
	}
	info, _ := os.Stat(filepath.Join(ext, "t.txt"))
	writeFiles(t, ext, map[string]string{"t.txt": "v3"})
	if err := os.Chtimes(filepath.Join(ext, "t.txt"), info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	if after, err := InputDigest(p, c); err != nil || after == before {
		t.Errorf("an edit keeping size and mtime: digest %s, %v; want a new one", after, err)
	}
	// Without links, an input's digest is DigestPath's.
	writeFiles(t, dir, map[string]string{"plain/a.txt": "a", "plain/b/c.txt": "c", "f.txt": "f"})
	for _, rel := range []string{"plain", "f.txt"} {
		p := filepath.Join(dir, rel)
		a, errA := InputDigest(p, nil)
		b, errB := DigestPath(p, nil)
		if errA != nil || errB != nil || a != b {
			t.Errorf("%s: InputDigest %s, %v; DigestPath %s, %v; want the same", rel, a, errA, b, errB)
		}
	}
}

// TestInputLinksRefused: an input that is, holds or matches a link that
// dangles is a missing input; one that is, holds or matches a symlink
// loop, a device or a FIFO is a *BadInputError naming the file at fault.
func TestInputLinksRefused(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"ok.txt": "ok", "d/ok.txt": "ok", "g/ok.txt": "ok", "f/ok.txt": "ok"})
	symlink(t, "nowhere", filepath.Join(root, "dangling.txt"))
	symlink(t, "nowhere", filepath.Join(root, "d/dangling.txt"))
	symlink(t, "loop.txt", filepath.Join(root, "loop.txt"))
	symlink(t, "..", filepath.Join(root, "d2/up"))
	symlink(t, "/dev/zero", filepath.Join(root, "zero"))
	symlink(t, "../nowhere", filepath.Join(root, "g/dangling.txt"))
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "f", "p.txt"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		input   string
		missing bool
		path    string // the file the error names
		what    string
	}{
		{"dangling.txt", true, "dangling.txt", "nowhere"},
		{"d", true, "d/dangling.txt", "nowhere"},
		{"g/*.txt", true, "g/dangling.txt", "../nowhere"},
		{"loop.txt", false, "loop.txt", "a symlink loop"},
		{"d2", false, "d2/up", "a symlink loop"},
		{"zero", false, "zero", "a symlink to /dev/zero, a character device"},
		{"fifo", false, "fifo", "a named pipe (fifo)"},
		{"f", false, "f/p.txt", "a named pipe (fifo)"},
		{"f/*.txt", false, "f/p.txt", "a named pipe (fifo)"},
	}
	for _, c := range cases {
		t.Run(c.input, func(t *testing.T) {
			files, err := ResolveInputs(root, []string{c.input})
			if err == nil {
				_, err = inputDigest(root, files[0], nil)
			}
			var missing *MissingInputError
			var bad *BadInputError
			switch {
			case c.missing:
				if !errors.As(err, &missing) || missing.Link != c.path || missing.Target != c.what {
					t.Fatalf("error %v; want a missing input: %s is a link to %s", err, c.path, c.what)
				}
			case !errors.As(err, &bad) || bad.Path != c.path || !strings.HasPrefix(bad.What, c.what):
				t.Fatalf("error %v; want a *BadInputError: %s is %s", err, c.path, c.what)
			}
			if !strings.Contains(err.Error(), c.path) {
				t.Errorf("error %q does not name %s", err, c.path)
			}
		})
	}
}

// TestBadInputDiagnostic: a node whose input is a FIFO gets a diagnostic at
// its inputs attribute that names the file and what it is; one whose input
// link dangles cannot run, as with a missing input, and the plan goes on.
func TestBadInputDiagnostic(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"pipeline.hcl": `exec "a" {
  command = "true"
  inputs  = ["p.fifo"]
}

exec "b" {
  command = "true"
  inputs  = ["data.txt"]
}
`})
	if err := syscall.Mkfifo(filepath.Join(dir, "p.fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	symlink(t, filepath.Join(dir, "nowhere"), filepath.Join(dir, "data.txt"))
	d := openDecider(t, dir)
	decide := func(a string) *Decision {
		na, err := addr.Parse(a)
		if err != nil {
			t.Fatal(err)
		}
		return d.Decide(context.Background(), d.Pipeline.Node(na), NewValues())
	}
	dec := decide("exec.a")
	if len(dec.Diags) != 1 || !dec.Diags.HasErrors() {
		t.Fatalf("diagnostics %v; want one error", dec.Diags)
	}
	diag := dec.Diags[0]
	if diag.Subject == nil || diag.Subject.Start.Line != 3 || !strings.Contains(diag.Detail, "inputs: p.fifo is a named pipe (fifo); an input must be a file or a folder") {
		t.Errorf("diagnostic %q at %v; want one at line 3 (inputs) saying p.fifo is a FIFO", diag.Detail, diag.Subject)
	}
	dec = decide("exec.b")
	if dec.Diags.HasErrors() || !strings.Contains(dec.Blocked, "input data.txt is a symlink to") || !strings.Contains(dec.Blocked, "which does not exist") {
		t.Errorf("a dangling input link: diagnostics %v, blocked %q; want it blocked as a missing input", dec.Diags, dec.Blocked)
	}
}
