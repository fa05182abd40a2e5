package exec

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/sandbox"
	"github.com/zclconf/go-cty/cty"
)

// config is an exec configuration as the engine decodes it: every
// attribute of the spec present, null when unset.
func config(command cty.Value, attrs map[string]cty.Value) cty.Value {
	m := map[string]cty.Value{
		"command": command,
		"dir":     cty.NullVal(cty.String),
		"env":     cty.NullVal(cty.Map(cty.String)),
		"outputs": cty.NullVal(cty.List(cty.String)),
	}
	for k, v := range attrs {
		m[k] = v
	}
	return cty.ObjectVal(m)
}

func TestCommand(t *testing.T) {
	tests := []struct {
		name    string
		command cty.Value
		want    []string
		wantErr string
	}{
		{"string runs in a shell", cty.StringVal("echo hi | tr a-z A-Z"), []string{"/bin/sh", "-c", "echo hi | tr a-z A-Z"}, ""},
		{"string runs in the shell given", cty.StringVal("false | cat"), []string{"bash", "-euo", "pipefail", "-c", "false | cat"}, ""},
		{"list runs directly", cty.ListVal([]cty.Value{cty.StringVal("echo"), cty.StringVal("a b")}), []string{"echo", "a b"}, ""},
		{"tuple runs directly", cty.TupleVal([]cty.Value{cty.StringVal("ls"), cty.StringVal("-l")}), []string{"ls", "-l"}, ""},
		{"empty list", cty.ListValEmpty(cty.String), nil, "empty list"},
		{"list with a number", cty.TupleVal([]cty.Value{cty.StringVal("sleep"), cty.NumberIntVal(1)}), nil, "list of strings"},
		{"list with null", cty.ListVal([]cty.Value{cty.StringVal("echo"), cty.NullVal(cty.String)}), nil, "list of strings"},
		{"null", cty.NullVal(cty.String), nil, "empty"},
		{"number", cty.NumberIntVal(3), nil, "must be a string"},
		{"map", cty.MapVal(map[string]cty.Value{"a": cty.StringVal("b")}), nil, "must be a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var shell []string
			if strings.HasPrefix(tt.name, "string runs in the shell given") {
				shell = sandbox.StrictShell
			}
			got, err := Command(config(tt.command, nil), shell)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Command() = %q, %v; want error containing %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("argv (-want +got):\n%s", diff)
			}
		})
	}
}

// syncBuffer is a log that the process writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// build runs cfg as a node of a pipeline in root and returns its log.
func build(ctx context.Context, t *testing.T, root string, cfg cty.Value) (string, *kind.Result, error) {
	t.Helper()
	out := t.TempDir()
	log := &syncBuffer{}
	b := &kind.Build{
		Node: kind.Node{Addr: addr.Node{Kind: "exec", Name: "t"}, Config: cfg, Root: root,
			Out: filepath.Join(root, ".kiln/out/exec.t"), State: filepath.Join(root, ".kiln")},
		Dir: out,
		Env: []string{"PATH=" + os.Getenv("PATH"), "KILN_OUT=" + out, "BASE=from-engine"},
		Log: log,
	}
	k := &Kind{Grace: time.Second}
	res, err := k.Build(ctx, b)
	return log.String(), res, err
}

func realPath(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestBuild(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "kiln-test-tool"), []byte("#!/bin/sh\necho tool ran with $1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	str := func(s string) cty.Value { return cty.StringVal(s) }
	list := func(s ...string) cty.Value {
		var vs []cty.Value
		for _, x := range s {
			vs = append(vs, cty.StringVal(x))
		}
		return cty.ListVal(vs)
	}
	env := func(kv ...string) cty.Value {
		m := map[string]cty.Value{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = cty.StringVal(kv[i+1])
		}
		return cty.MapVal(m)
	}
	tests := []struct {
		name    string
		cfg     cty.Value
		want    string // the log
		wantErr string
	}{
		{"shell string", config(str("echo one; echo two"), nil), "one\ntwo\n", ""},
		{"list keeps arguments whole", config(list("printf", "%s|", "a b", "c"), nil), "a b|c|", ""},
		{"dir defaults to the pipeline folder", config(str("pwd -P"), nil), realPath(t, root) + "\n", ""},
		{"relative dir is under the pipeline folder", config(str("pwd -P"), map[string]cty.Value{"dir": str("sub")}), realPath(t, root) + "/sub\n", ""},
		{"absolute dir", config(str("pwd -P"), map[string]cty.Value{"dir": str(bin)}), realPath(t, bin) + "\n", ""},
		{"env reaches the process", config(str("echo $GREETING $BASE"), map[string]cty.Value{"env": env("GREETING", "hello")}), "hello from-engine\n", ""},
		{"env overrides the engine's", config(str("echo $BASE"), map[string]cty.Value{"env": env("BASE", "from-node")}), "from-node\n", ""},
		{"KILN_OUT is set", config(str(`test -d "$KILN_OUT" && echo ok`), nil), "ok\n", ""},
		{"program found on the node's PATH", config(list("kiln-test-tool", "x"), map[string]cty.Value{"env": env("PATH", bin+":/usr/bin:/bin")}), "tool ran with x\n", ""},
		{"program not on PATH", config(list("kiln-no-such-program"), nil), "", `"kiln-no-such-program" not found on PATH`},
		{"missing absolute program", config(list("/nonexistent/kiln-tool"), nil), "", "/nonexistent/kiln-tool not found"},
		{"shell cannot find the program", config(str("kiln-no-such-program --flag"), nil), "", "the shell could not find a command"},
		{"missing dir", config(str("true"), map[string]cty.Value{"dir": str("nowhere")}), "", "nowhere does not exist"},
		{"exit status", config(str("echo failing; exit 7"), nil), "failing\n", "exit status 7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log, _, err := build(context.Background(), t, root, tt.cfg)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q (log %q)", err, tt.wantErr, log)
				}
			} else if err != nil {
				t.Fatalf("build: %v (log %q)", err, log)
			}
			if tt.want != "" && log != tt.want {
				t.Errorf("log (-want +got):\n%s", cmp.Diff(tt.want, log))
			}
		})
	}
}

func TestBuildResultOutputs(t *testing.T) {
	cfg := config(cty.StringVal("touch a b"), map[string]cty.Value{"outputs": cty.ListVal([]cty.Value{cty.StringVal("a"), cty.StringVal("b")})})
	_, res, err := build(context.Background(), t, t.TempDir(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a", "b"}, res.Outputs); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}
}

// TestBuildCancelKillsGroup: cancelling the build stops the command and the
// background process it started.
func TestBuildCancelKillsGroup(t *testing.T) {
	root := t.TempDir()
	pidFile := filepath.Join(root, "bg.pid")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		_, _, err := build(ctx, t, root, config(cty.StringVal("sleep 30 & echo $! > bg.pid; wait"), nil))
		errc <- err
	}()
	var pid int
	waitFor(t, "the background pid", func() bool {
		b, err := os.ReadFile(pidFile)
		if err != nil || !bytes.HasSuffix(b, []byte("\n")) {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil
	})
	cancel()
	select {
	case err := <-errc:
		if err == nil {
			t.Fatal("build succeeded after cancellation")
		}
	case <-time.After(15 * time.Second):
		t.Fatal("build did not return after cancellation")
	}
	waitFor(t, fmt.Sprintf("process %d to be killed", pid), func() bool { return processGone(pid) })
}

// TestBuildRelativeProgramInDir: a list command naming ./tool runs the tool
// in the node's dir, as the shell form would.
func TestBuildRelativeProgramInDir(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "tool.sh"), []byte("#!/bin/sh\necho relative tool\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	log, _, err := build(context.Background(), t, root, config(cty.ListVal([]cty.Value{cty.StringVal("./tool.sh")}), nil))
	if err != nil || log != "relative tool\n" {
		t.Fatalf("command = [\"./tool.sh\"] with the tool in the pipeline folder: %v (log %q); want it run (the program is looked up relative to kiln's working folder, not dir)", err, log)
	}
}

// TestBuildNullValuesAreErrors: null values inside env or outputs (from a
// variable left null) are configuration errors, not crashes.
func TestBuildNullValuesAreErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  cty.Value
	}{
		{"env value", config(cty.StringVal("true"), map[string]cty.Value{"env": cty.MapVal(map[string]cty.Value{"A": cty.NullVal(cty.String)})})},
		{"outputs element", config(cty.StringVal("true"), map[string]cty.Value{"outputs": cty.ListVal([]cty.Value{cty.NullVal(cty.String)})})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var panicked any
			var err error
			func() {
				defer func() { panicked = recover() }()
				_, _, err = build(context.Background(), t, t.TempDir(), tt.cfg)
			}()
			if panicked != nil {
				t.Fatalf("a null %s makes Build panic: %v; want an error naming the attribute", tt.name, panicked)
			}
			if err == nil {
				t.Errorf("a null %s was accepted", tt.name)
			}
		})
	}
}

// processGone reports whether pid has exited (a zombie counts as exited).
func processGone(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return false
	}
	f := strings.Fields(string(b[i+1:]))
	return len(f) > 0 && (f[0] == "Z" || f[0] == "X")
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
