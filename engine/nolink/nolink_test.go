package nolink

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenFileRefusesALink: whatever the flags, a link at the name is
// refused and the file it points at keeps its content.
func TestOpenFileRefusesALink(t *testing.T) {
	flags := map[string]int{
		"truncate":                  os.O_WRONLY | os.O_CREATE | os.O_TRUNC,
		"append":                    os.O_WRONLY | os.O_CREATE | os.O_APPEND,
		"read and write, as a lock": os.O_RDWR | os.O_CREATE,
	}
	for name, flag := range flags {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			decoy := filepath.Join(dir, "decoy")
			if err := os.WriteFile(decoy, []byte("precious\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			link := filepath.Join(dir, "lock")
			if err := os.Symlink(decoy, link); err != nil {
				t.Fatal(err)
			}
			f, err := OpenFile(link, flag, 0o644)
			if err == nil {
				f.Write([]byte("x"))
				f.Close()
			}
			var le *Error
			if !errors.As(err, &le) {
				t.Fatalf("OpenFile of a link: %v, want an *Error", err)
			}
			if le.Path != link || le.Target != decoy {
				t.Errorf("Error names %s -> %s, want %s -> %s", le.Path, le.Target, link, decoy)
			}
			for _, want := range []string{link, decoy, "remove the link"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("message %q does not say %q", err, want)
				}
			}
			if b, _ := os.ReadFile(decoy); string(b) != "precious\n" {
				t.Errorf("the decoy holds %q", b)
			}
		})
	}
}

func TestOpenFileWritesAFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.journal")
	if err := WriteFile(path, []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("b\n")
	f.Close()
	if b, _ := os.ReadFile(path); string(b) != "a\nb\n" {
		t.Errorf("file holds %q", b)
	}
	if _, err := OpenFile(filepath.Join(t.TempDir(), "missing"), os.O_RDONLY, 0); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v, want ErrNotExist", err)
	}
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	link := filepath.Join(dir, "link")
	os.Symlink("elsewhere", link)
	if err := Check(file); err != nil {
		t.Errorf("Check(file) = %v", err)
	}
	if err := Check(filepath.Join(dir, "missing")); err != nil {
		t.Errorf("Check(missing) = %v", err)
	}
	var le *Error
	if err := Check(link); !errors.As(err, &le) || le.Target != "elsewhere" {
		t.Errorf("Check(link) = %v, want an *Error naming elsewhere", err)
	}
}
