package state

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// assertOnly fails unless dir holds exactly the named entries (no
// temporary files left behind).
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, de := range des {
		got = append(got, de.Name())
	}
	if strings.Join(got, ",") != strings.Join(names, ",") {
		t.Errorf("%s holds %v, want %v", dir, got, names)
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "plan.json")
	for _, content := range []string{"old", "new and longer"} {
		if err := WriteFileAtomic(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); string(got) != content {
			t.Errorf("content %q, want %q", got, content)
		}
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	assertOnly(t, dir, "plan.json")
}

func TestWriteFileAtomicPathIsFolder(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "target")
	writeFile(t, filepath.Join(path, "inside"), "keep")
	if err := WriteFileAtomic(path, []byte("x"), 0o644); err == nil {
		t.Fatal("WriteFileAtomic replaced a folder")
	}
	if data, _ := os.ReadFile(filepath.Join(path, "inside")); string(data) != "keep" {
		t.Error("the folder's content changed")
	}
	assertOnly(t, dir, "target")
}

func TestWriteFileAtomicReadOnlyFolder(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes into read-only folders; TestWriteFileAtomicSizeLimit covers a failing write")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	writeFile(t, path, "old")
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o755)
	if err := WriteFileAtomic(path, []byte("new"), 0o644); err == nil {
		t.Fatal("write into a read-only folder succeeded")
	}
	if data, _ := os.ReadFile(path); string(data) != "old" {
		t.Errorf("content %q, want the old content", data)
	}
	assertOnly(t, dir, "f")
}

const sizeLimitHelperEnv = "KILN_STATE_TEST_SIZE_LIMIT_FILE"

// TestSizeLimitHelperProcess is not a test: run as a child process by
// TestWriteFileAtomicSizeLimit, it writes under a 4 KiB file size limit,
// which makes the write fail half way as a full disk would.
func TestSizeLimitHelperProcess(t *testing.T) {
	path := os.Getenv(sizeLimitHelperEnv)
	if path == "" {
		t.Skip("runs only as a helper process")
	}
	if err := unix.Setrlimit(unix.RLIMIT_FSIZE, &unix.Rlimit{Cur: 4096, Max: 4096}); err != nil {
		fmt.Println("setrlimit:", err)
		os.Exit(2)
	}
	err := WriteFileAtomic(path, bytes.Repeat([]byte("n"), 1<<20), 0o644)
	fmt.Println("error:", err)
	os.Exit(0)
}

func TestWriteFileAtomicSizeLimit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	writeFile(t, path, "old")
	cmd := exec.Command(os.Args[0], "-test.run=^TestSizeLimitHelperProcess$")
	cmd.Env = append(os.Environ(), sizeLimitHelperEnv+"="+path)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helper: %v: %s", err, out)
	}
	t.Logf("helper: %s", out)
	if msg := string(out); !strings.Contains(msg, "file size limit exceeded") || !strings.Contains(msg, "previous content is unchanged") {
		t.Errorf("helper's error does not explain the failure: %s", msg)
	}
	if data, _ := os.ReadFile(path); string(data) != "old" {
		t.Errorf("content %.20q, want the old content", data)
	}
	assertOnly(t, dir, "state.json")
}

func TestWriteErrorNamesFullDisk(t *testing.T) {
	f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full:", err)
	}
	defer f.Close()
	_, werr := f.Write([]byte("x")) // a real ENOSPC
	if werr == nil {
		t.Skip("/dev/full accepted a write")
	}
	msg := writeError("/p/.kiln/state.json", werr).Error()
	for _, want := range []string{"/p/.kiln/state.json", "disk full", "free some space", "unchanged"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not say %q", msg, want)
		}
	}
}
