package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// A run whose upstream result is held open reads it as one whose rule opens
// it by path, and is still refused what it does not declare; past the
// bound, a folder is allowed by its path.
func TestHeldResultsAllowWhatTheirPathsWould(t *testing.T) {
	for _, bound := range []int{16, 0} {
		p, root := fixture(t)
		up := filepath.Join(root, ".kiln/store/up/r1")
		h := NewHeld()
		h.max = bound
		defer h.Close()
		h.Hold(up)
		if _, held := h.of(up); held != (bound > 0) {
			t.Fatalf("bound %d: held = %v", bound, held)
		}
		p.Held = h
		if code, out := sh(t, p, root, "cat .kiln/store/up/r1/result.txt"); code != 0 || out != "up\n" {
			t.Errorf("bound %d: reading the held result: exit %d, %q", bound, code, out)
		}
		// What lies outside the pipeline folder, held too where the
		// process holds too many such entries already.
		if code, out := sh(t, p, root, "cat /etc/passwd > /dev/null"); code != 0 {
			t.Errorf("bound %d: reading outside the pipeline folder: exit %d, %q", bound, code, out)
		}
		for _, script := range []string{"cat undeclared.txt", "echo x >> .kiln/store/up/r1/result.txt"} {
			if code, _ := sh(t, p, root, script); code == 0 {
				t.Errorf("bound %d: %q was allowed", bound, script)
			}
		}
	}
}

// Close closes what Held holds: the folder is no longer open in kiln.
func TestHeldCloses(t *testing.T) {
	dir := t.TempDir()
	h := NewHeld()
	h.Hold(dir)
	f, ok := h.of(dir)
	if !ok {
		t.Fatal("not held")
	}
	link := filepath.Join("/proc/self/fd", strconv.Itoa(f.fd))
	if target, err := os.Readlink(link); err != nil || target != dir {
		t.Fatalf("fd %d is %q, %v; want %s", f.fd, target, err, dir)
	}
	h.Close()
	if target, err := os.Readlink(link); err == nil && target == dir {
		t.Fatalf("fd %d still holds %s after Close", f.fd, dir)
	}
	if _, ok := h.of(dir); ok {
		t.Fatal("still held after Close")
	}
}
