package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestExplainStateError: a file system error in the state folder says what
// is wrong and what to do; other errors pass unchanged.
func TestExplainStateError(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".kiln")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	at := func(name string, errno syscall.Errno) error {
		return fmt.Errorf("reading state: %w", &fs.PathError{Op: "open", Path: filepath.Join(dir, name), Err: errno})
	}
	cases := []struct {
		err  error
		want []string
	}{
		{at("state.json", syscall.EISDIR), []string{"is a directory", "kiln keeps a file at " + filepath.Join(dir, "state.json") + ", but it is a folder", "mv "}},
		{at("lock", syscall.EACCES), []string{"permission denied", "kiln cannot write in the state folder " + dir, "chmod -R u+w " + dir}},
		{at("state.journal", syscall.EROFS), []string{"read-only file system", "The state folder " + dir + " is on a read-only file system"}},
	}
	for _, c := range cases {
		got := ExplainStateError(c.err)
		var se *StateFolderError
		if !errors.As(got, &se) || !errors.Is(got, c.err) {
			t.Errorf("%v: got %v, want a StateFolderError wrapping it", c.err, got)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(got.Error(), w) {
				t.Errorf("%v: %q does not say %q", c.err, got, w)
			}
		}
		if again := ExplainStateError(got); again != got {
			t.Errorf("explained twice: %v", again)
		}
	}
	for _, err := range []error{
		nil,
		errors.New("no such node"),
		&fs.PathError{Op: "open", Path: "/etc/x", Err: syscall.EACCES},                // not in a state folder
		&fs.PathError{Op: "open", Path: filepath.Join(dir, "x"), Err: fs.ErrNotExist}, // nothing to fix
	} {
		if got := ExplainStateError(err); got != err {
			t.Errorf("%v changed to %v", err, got)
		}
	}
}
