package state

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kilnbuild/kiln/engine/nolink"
)

// plantDecoy makes a file outside the state folder and a link to it at
// dir/name, as a careless or hostile checkout could.
func plantDecoy(t *testing.T, dir, name string) (decoy string) {
	t.Helper()
	decoy = filepath.Join(t.TempDir(), "decoy")
	if err := os.WriteFile(decoy, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(decoy, filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
	return decoy
}

func intact(t *testing.T, decoy string) {
	t.Helper()
	if b, err := os.ReadFile(decoy); err != nil || string(b) != "precious\n" {
		t.Errorf("the file a planted link points at holds %q (%v), want it untouched", b, err)
	}
}

func wantLinkError(t *testing.T, err error, link string) {
	t.Helper()
	var le *nolink.Error
	if !errors.As(err, &le) {
		t.Fatalf("got %v, want a *nolink.Error for %s", err, link)
	}
	if le.Path != link {
		t.Errorf("the error names %s, want %s", le.Path, link)
	}
	if !strings.Contains(err.Error(), "remove the link") {
		t.Errorf("the error %q gives no way forward", err)
	}
}

// TestPlantedLinksAreRefused: a link at any name at the top of the state
// folder stops Load and AcquireLock before anything is written.
func TestPlantedLinksAreRefused(t *testing.T) {
	for _, name := range []string{lockName, journalName, runLogName, snapshotName, secretName, "cache"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), ".kiln")
			decoy := plantDecoy(t, dir, name)
			_, err := Load(dir)
			wantLinkError(t, err, filepath.Join(dir, name))
			l, err := AcquireLock(dir, Holder{PID: os.Getpid(), Command: "kiln apply"})
			if err == nil {
				l.Release()
			}
			wantLinkError(t, err, filepath.Join(dir, name))
			if !strings.Contains(err.Error(), "link the whole state folder instead") {
				t.Errorf("the error %q does not say how to keep the state elsewhere", err)
			}
			intact(t, decoy)
		})
	}
}

// TestJournalsRefuseALink: a link planted while the lock is held (after
// AcquireLock looked) is still never written through.
func TestJournalsRefuseALink(t *testing.T) {
	t.Run("state journal", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), ".kiln")
		l, err := AcquireLock(dir, Holder{PID: os.Getpid()})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Release()
		s, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		decoy := plantDecoy(t, dir, journalName)
		w, err := OpenWriter(dir, s)
		if err == nil {
			w.Close()
		}
		wantLinkError(t, err, filepath.Join(dir, journalName))
		intact(t, decoy)
	})
	t.Run("run journal", func(t *testing.T) {
		dir := t.TempDir()
		l, _, err := OpenRunLog(dir)
		if err != nil {
			t.Fatal(err)
		}
		decoy := plantDecoy(t, dir, runLogName)
		_, err = l.Begin("exec.a", "k-r", false)
		wantLinkError(t, err, filepath.Join(dir, runLogName))
		intact(t, decoy)
	})
}

// TestFolderLink: a state folder linked to an empty folder or to a state
// folder is accepted (a bigger disk); to anything else it is refused with
// where it leads and what to do.
func TestFolderLink(t *testing.T) {
	made := func(t *testing.T, files ...string) string {
		d := t.TempDir()
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(d, f), []byte("x\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	tests := []struct {
		name   string
		target func(t *testing.T) string
		ok     bool
		says   string
	}{
		{"an empty folder", func(t *testing.T) string { return made(t) }, true, ""},
		{"a state folder", func(t *testing.T) string { return made(t, lockName, snapshotName) }, true, ""},
		{"a folder kiln made", func(t *testing.T) string {
			d := filepath.Join(t.TempDir(), "s")
			if err := MakeDir(d); err != nil {
				t.Fatal(err)
			}
			return d
		}, true, ""},
		{"nothing", func(t *testing.T) string { return filepath.Join(t.TempDir(), "gone") }, false, "does not exist: create the folder it points at (mkdir -p"},
		{"a file", func(t *testing.T) string { return filepath.Join(made(t, "f"), "f") }, false, "which is not a folder: point the link at an empty folder"},
		{"a folder of other files", func(t *testing.T) string { return made(t, ".bashrc", "notes.txt") }, false, "holds other files and no kiln state: point the link at an empty folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target := tt.target(t)
			dir := filepath.Join(t.TempDir(), ".kiln")
			if err := os.Symlink(target, dir); err != nil {
				t.Fatal(err)
			}
			got, err := FolderLink(dir)
			if tt.ok {
				want, _ := filepath.EvalSymlinks(target)
				if err != nil || got != want {
					t.Fatalf("FolderLink = %q, %v; want %q", got, err, want)
				}
				l, err := AcquireLock(dir, Holder{PID: os.Getpid()})
				if err != nil {
					t.Fatalf("AcquireLock through an accepted link: %v", err)
				}
				l.Release()
				return
			}
			var fe *FolderLinkError
			if !errors.As(err, &fe) {
				t.Fatalf("FolderLink = %q, %v; want a *FolderLinkError", got, err)
			}
			for _, want := range []string{dir, "is a symbolic link to", tt.says, "rm " + dir} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if _, err := Load(dir); !errors.As(err, &fe) {
				t.Errorf("Load = %v, want the *FolderLinkError", err)
			}
			if _, err := AcquireLock(dir, Holder{PID: os.Getpid()}); !errors.As(err, &fe) {
				t.Errorf("AcquireLock = %v, want the *FolderLinkError", err)
			}
			if err := MakeDir(dir); !errors.As(err, &fe) {
				t.Errorf("MakeDir = %v, want the *FolderLinkError", err)
			}
		})
	}
	if got, err := FolderLink(t.TempDir()); got != "" || err != nil {
		t.Errorf("FolderLink of a plain folder = %q, %v", got, err)
	}
}
