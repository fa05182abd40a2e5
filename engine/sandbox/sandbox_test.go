package sandbox

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// fixture is a pipeline folder with a declared input, an undeclared file,
// an upstream result and a run folder, and the policy of that run.
func fixture(t *testing.T) (*Policy, string) {
	t.Helper()
	if !Probe().Enforced() {
		t.Fatalf("this machine has no Landlock (%s): the sandbox tests need Linux 5.13 or later with Landlock on", Probe().Reason)
	}
	root := t.TempDir()
	for path, text := range map[string]string{
		"declared.txt":                 "in\n",
		"undeclared.txt":               "secret\n",
		".kiln/store/up/r1/result.txt": "up\n",
		".kiln/store/me/r2/.keep":      "",
		".kiln/state.json":             "{}\n",
	} {
		p := filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tmp := t.TempDir()
	return &Policy{
		Root:  root,
		Read:  []string{filepath.Join(root, "declared.txt"), filepath.Join(root, ".kiln/store/up/r1")},
		Write: []string{filepath.Join(root, ".kiln/store/me/r2"), tmp},
	}, root
}

// sh runs script under p in root and returns its exit code and output.
func sh(t *testing.T, p *Policy, root, script string) (int, string) {
	t.Helper()
	var out bytes.Buffer
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := p.Start(cmd); err != nil {
		t.Fatalf("start: %v", err)
	}
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, out.String()
}

// What a sealed run may and may not do, each with a real process.
func TestPolicyConfinesARun(t *testing.T) {
	p, root := fixture(t)
	for _, c := range []struct {
		name   string
		script string
		ok     bool
	}{
		{"write its run folder", "echo x > .kiln/store/me/r2/out && mkdir .kiln/store/me/r2/d && ln -s out .kiln/store/me/r2/l", true},
		{"write its temporary folder", "echo x > " + p.Write[1] + "/t", true},
		{"read a declared input", "cat declared.txt", true},
		{"read an upstream result", "cat .kiln/store/up/r1/result.txt", true},
		{"read outside the pipeline folder", "cat /etc/passwd > /dev/null", true},
		{"write /dev/null", "echo x > /dev/null", true},
		{"run a program", "ls / > /dev/null || true; true", true},
		{"write into an upstream result", "echo x > .kiln/store/up/r1/result.txt.bai", false},
		{"change an upstream result", "echo x >> .kiln/store/up/r1/result.txt", false},
		{"remove an upstream result", "rm .kiln/store/up/r1/result.txt", false},
		{"write beside its run folder", "echo x > .kiln/store/me/sibling", false},
		{"write kiln's state", "echo x > .kiln/state.json", false},
		{"write the pipeline folder", "echo x > new.txt", false},
		{"change a declared input", "echo x >> declared.txt", false},
		{"read an undeclared file", "cat undeclared.txt", false},
		{"list the pipeline folder", "ls . .kiln > /dev/null && echo *.txt | grep -q undeclared", true},
		{"write outside the pipeline folder", "echo x > " + filepath.Dir(root) + "/escaped", false},
		{"move its result into an upstream's", "mv .kiln/store/me/r2/.keep .kiln/store/up/r1/", false},
	} {
		code, out := sh(t, p, root, c.script)
		if (code == 0) != c.ok {
			t.Errorf("%s: exit %d, want ok=%v; output: %s", c.name, code, c.ok, out)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(root), "escaped")); err == nil {
		t.Errorf("a write outside the pipeline folder landed")
	}
	if b, _ := os.ReadFile(filepath.Join(root, ".kiln/store/up/r1/result.txt")); string(b) != "up\n" {
		t.Errorf("the upstream result is %q, want it untouched", b)
	}
}

// kiln's own process stays unrestricted after starting a sealed run.
func TestPolicyLeavesKilnFree(t *testing.T) {
	p, root := fixture(t)
	for range 4 {
		if code, out := sh(t, p, root, "cat undeclared.txt"); code == 0 {
			t.Fatalf("the sealed run read an undeclared file: %s", out)
		}
	}
	if _, err := os.ReadFile(filepath.Join(root, "undeclared.txt")); err != nil {
		t.Fatalf("kiln itself was restricted: %v", err)
	}
	if err := os.WriteFile(filepath.Join(root, "kiln-writes.txt"), nil, 0o644); err != nil {
		t.Fatalf("kiln itself was restricted: %v", err)
	}
}

// The umask of a run is 022 whatever kiln's own.
func TestPolicyUmask(t *testing.T) {
	p, root := fixture(t)
	code, out := sh(t, p, root, "umask")
	if code != 0 || out != "0022\n" {
		t.Fatalf("umask: exit %d, %q; want 0022", code, out)
	}
}

// Denied names the paths the messages of common tools refused, relative
// ones taken from the run's folder, and leaves out paths it may write.
func TestDeniedReadsTheLog(t *testing.T) {
	p, root := fixture(t)
	lines := []string{
		"sh: 1: cannot create " + root + "/.kiln/store/up/r1/x.bai: Permission denied",
		"cat: undeclared.txt: Permission denied",
		"PermissionError: [Errno 13] Permission denied: '" + root + "/configs/ppo.yaml'",
		"touch: cannot touch '/opt/elsewhere': Permission denied",
		"cannot open " + root + "/.kiln/store/me/r2/busy: Permission denied", // writable: another cause
		"plain line naming " + root + "/undeclared.txt",
	}
	var got []string
	for _, d := range p.Denied(lines, root) {
		got = append(got, d.Path)
	}
	want := []string{root + "/.kiln/store/up/r1/x.bai", root + "/undeclared.txt", root + "/configs/ppo.yaml", "/opt/elsewhere"}
	if !slices.Equal(got, want) {
		t.Fatalf("Denied = %q\nwant %q", got, want)
	}
}

// ReadTrace keeps the paths successful opens resolved to, reads apart
// from writes, and the programs that ran; failed calls are left out.
func TestReadTrace(t *testing.T) {
	log := filepath.Join(t.TempDir(), "trace")
	lines := `101   execve("/usr/bin/bash", ["bash", "-c", "x"], 0x7ff /* 3 vars */) = 0
101   openat(AT_FDCWD</p>, "in.txt", O_RDONLY|O_CLOEXEC) = 3</p/in.txt>
102   openat(AT_FDCWD</p>, "link.txt", O_RDONLY) = 4</data/real.txt>
102   openat(AT_FDCWD</p>, "gone", O_RDONLY) = -1 ENOENT (No such file or directory)
102   openat(AT_FDCWD</p>, "out", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3</p/.kiln/store/x/out>
103 execve("/usr/bin/missing", ["missing"], 0x7ff /* 3 vars */) = -1 ENOENT (No such file or directory)
103 execve("/usr/bin/cat", ["cat"], 0x7ff /* 3 vars */) = 0
103 +++ exited with 0 +++
`
	if err := os.WriteFile(log, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := ReadTrace(log, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want []string
	}{
		{"read", tr.Read, []string{"/data/real.txt", "/p/in.txt"}},
		{"written", tr.Written, []string{"/p/.kiln/store/x/out"}},
		{"programs", tr.Programs, []string{"/usr/bin/bash", "/usr/bin/cat"}},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
}
