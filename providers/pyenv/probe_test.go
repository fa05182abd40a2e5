package pyenv

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/kind"
)

// TestProbeInterpreter: at plan time, an interpreter that is missing, or
// that is on PATH but does not run (a pyenv shim for a version not
// selected), blocks the node with what is wrong; one that runs is named
// with its version.
func TestProbeInterpreter(t *testing.T) {
	bin := t.TempDir()
	shim := "#!/bin/sh\necho \"pyenv: python3.77: command not found\" >&2\necho >&2\necho \"The 'python3.77' command exists in these Python versions:\" >&2\nexit 127\n"
	if err := os.WriteFile(filepath.Join(bin, "python3.77"), []byte(shim), 0o755); err != nil {
		t.Fatal(err)
	}
	noVenv := "#!/bin/sh\nprintf 'Traceback (most recent call last):\\n  File \"<string>\", line 1\\nModuleNotFoundError: No module named '\"'ensurepip'\"'\\n' >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(bin, "python3.78"), []byte(noVenv), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	tests := []struct {
		python  string
		blocked string // "" when it runs
	}{
		{"python3", ""},
		{"python-kiln-missing", "python_env x: python-kiln-missing not found (install it, add its folder to PATH, or set python to an installed interpreter)"},
		{"python3.77", "python_env x: python3.77 (" + filepath.Join(bin, "python3.77") + ") does not run: pyenv: python3.77: command not found"},
		{"python3.78", "python_env x: python3.78 (" + filepath.Join(bin, "python3.78") + ") does not run: ModuleNotFoundError: No module named 'ensurepip' (on Debian and Ubuntu install python3-venv)"},
	}
	for _, tt := range tests {
		t.Run(tt.python, func(t *testing.T) {
			n := &kind.Node{Addr: addr.Node{Kind: "python_env", Name: "x"}, Config: decodeHCL(t, `python = "`+tt.python+`"`), Root: t.TempDir()}
			p, err := New().(*PythonEnv).Probe(context.Background(), n, nil)
			if err != nil {
				t.Fatal(err)
			}
			if p.Blocked != tt.blocked {
				t.Errorf("Blocked = %q\nwant      %q", p.Blocked, tt.blocked)
			}
			if tt.blocked == "" && !strings.HasPrefix(p.Facts["interpreter_version"], "3.") {
				t.Errorf("Facts = %v, want the interpreter's version", p.Facts)
			}
		})
	}
}

// TestProbeKeysInterpreterMinorVersion: the interpreter found on the node's
// PATH (what the build will use) gives its major.minor version as a key
// line, so a python3 of another minor version rebuilds the environment and
// a patch release does not.
func TestProbeKeysInterpreterMinorVersion(t *testing.T) {
	fake := func(version string) string {
		bin := t.TempDir()
		script := "#!/bin/sh\necho " + version + "\n"
		if err := os.WriteFile(filepath.Join(bin, "python3"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		return bin
	}
	tests := []struct {
		version string
		want    [][2]string
	}{
		{"3.11.4", [][2]string{{"python.version", "3.11"}}},
		{"3.11.9", [][2]string{{"python.version", "3.11"}}},
		{"3.12.1", [][2]string{{"python.version", "3.12"}}},
	}
	for _, tt := range tests {
		t.Run(tt.version, func(t *testing.T) {
			n := &kind.Node{Addr: addr.Node{Kind: "python_env", Name: "x"}, Config: decodeHCL(t, `python = "python3"`), Root: t.TempDir(),
				Env: []string{"PATH=" + fake(tt.version) + ":/usr/bin:/bin"}}
			p, err := New().(*PythonEnv).Probe(context.Background(), n, nil)
			if err != nil {
				t.Fatal(err)
			}
			if p.Blocked != "" {
				t.Fatalf("Blocked = %q", p.Blocked)
			}
			if diff := cmp.Diff(tt.want, p.KeyLines); diff != "" {
				t.Errorf("KeyLines (-want +got):\n%s", diff)
			}
			if p.Facts["interpreter_version"] != tt.version {
				t.Errorf("Facts = %v, want interpreter_version %s", p.Facts, tt.version)
			}
		})
	}
}
