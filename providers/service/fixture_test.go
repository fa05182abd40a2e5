package service

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/proc"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// decode parses a service block body with the kind's Spec, with jsonencode
// available as in a pipeline.
func decode(t *testing.T, src string) cty.Value {
	t.Helper()
	f, diags := hclsyntax.ParseConfig([]byte(src), "service.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("parse: %v\n%s", diags, src)
	}
	ctx := &hcl.EvalContext{Functions: map[string]function.Function{"jsonencode": stdlib.JSONEncodeFunc}}
	v, diags := hcldec.Decode(f.Body, New().Spec(), ctx)
	if diags.HasErrors() {
		t.Fatalf("decode: %v\n%s", diags, src)
	}
	return v
}

// testKind is the kind with a short grace period.
func testKind() *Service {
	s := New().(*Service)
	s.Grace = 2 * time.Second
	return s
}

func newBuild(t *testing.T, cfg cty.Value) *kind.Build {
	t.Helper()
	state := t.TempDir()
	return &kind.Build{
		Node: kind.Node{
			Addr:   addr.Node{Kind: "service", Name: "sandbox"},
			Config: cfg,
			Root:   t.TempDir(),
			Out:    filepath.Join(state, "out", "service.sandbox"),
			State:  state,
		},
		Dir: t.TempDir(),
		Env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()},
		Log: &bytes.Buffer{},
	}
}

// build runs Build and, when it succeeds, stops the service at cleanup.
func build(t *testing.T, ctx context.Context, b *kind.Build) (*kind.Result, error) {
	t.Helper()
	s := testKind()
	res, err := s.Build(ctx, b)
	if err == nil {
		t.Cleanup(func() {
			if err := s.Stop(context.Background(), &b.Node, &kind.Record{Attrs: res.Attrs}); err != nil {
				t.Errorf("cleanup: %v", err)
			}
		})
	}
	return res, err
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

var (
	pythonOnce sync.Once
	pythonPath string
)

// python is the absolute path of the python3 interpreter, resolved with the
// test's own environment (a shim may need variables the service lacks).
func python(t *testing.T) string {
	t.Helper()
	pythonOnce.Do(func() {
		out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
		if err == nil {
			pythonPath = strings.TrimSpace(string(out))
		}
	})
	if pythonPath == "" {
		t.Skip("python3 is not installed")
	}
	return pythonPath
}

// sandbox is the HCL of a SandboxFusion-like service run by the test binary.
type sandbox struct {
	mode     string // helper mode: serve, unready, exit
	port     int
	python   string
	extraEnv string // more HCL map entries
	ready    string // ready block body; "" for the default ping probe
	checks   string // check blocks
}

func (s sandbox) hcl() string {
	ready := s.ready
	if ready == "" {
		ready = fmt.Sprintf(`url = "http://127.0.0.1:%d/v1/ping"
    contains = "pong"
    interval = "50ms"
    timeout  = "20s"`, s.port)
	}
	return fmt.Sprintf(`
command = [%q, "-test.run=^TestHelperProcess$"]
env = {
  KILN_SERVICE_HELPER = %q
  HELPER_PORT         = "%d"
  HELPER_PYTHON       = %q
  %s
}
url  = "http://127.0.0.1:%d"
port = %d
ready {
    %s
}
%s
stop {
  grace = "3s"
}
`, os.Args[0], s.mode, s.port, s.python, s.extraEnv, s.port, s.port, ready, s.checks)
}

// helloCheck is the check retool.hcl runs against SandboxFusion.
func helloCheck(port int, stdout string) string {
	return fmt.Sprintf(`
check {
  url     = "http://127.0.0.1:%d/run_code"
  method  = "POST"
  body    = jsonencode({ code = "print(\"Hello, world!\")", language = "python" })
  headers = { "Content-Type" = "application/json" }
  json    = { status = "Success", "run_result.stdout" = %q }
}`, port, stdout)
}

// gone reports whether pid has exited (a zombie counts as exited).
func gone(pid int) bool {
	st, err := proc.ReadStat(pid)
	return err != nil || st.Dead()
}

// waitUntilGone fails the test if pid still runs after a generous bound.
func waitUntilGone(t *testing.T, pid int) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if gone(pid) {
			return
		}
	}
	t.Fatalf("process %d is still running", pid)
}

// startedPID reads "started pid N" from a build's log.
func startedPID(t *testing.T, log string) int {
	t.Helper()
	_, rest, ok := strings.Cut(log, "started pid ")
	if !ok {
		t.Fatalf("log has no started pid line:\n%s", log)
	}
	pid, err := strconv.Atoi(strings.TrimSuffix(strings.Fields(rest)[0], ":"))
	if err != nil {
		t.Fatalf("log's started pid line: %v\n%s", err, log)
	}
	return pid
}

// startSleeper starts `sleep 60` in its own process group, killed at cleanup.
func startSleeper(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd.Process.Pid
}
