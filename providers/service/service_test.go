package service

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/zclconf/go-cty/cty"
)

func ping(t *testing.T, port int) string {
	t.Helper()
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/v1/ping", port))
	if err != nil {
		t.Fatalf("ping: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func TestBuildStartsReadyAndChecksAndOutlivesContext(t *testing.T) {
	port := freePort(t)
	b := newBuild(t, decode(t, sandbox{mode: "serve", port: port, python: python(t), checks: helloCheck(port, "Hello, world!\n")}.hcl()))
	ctx, cancel := context.WithCancel(context.Background())
	res, err := build(t, ctx, b)
	cancel()
	if err != nil {
		t.Fatalf("Build: %v\nlog:\n%s", err, b.Log)
	}
	if got := ping(t, port); got != `"pong"` {
		t.Errorf("ping after the build's context ended = %q, want \"pong\"", got)
	}

	pid, err := strconv.Atoi(res.Attrs[attrPID])
	if err != nil {
		t.Fatalf("Attrs[pid] = %q", res.Attrs[attrPID])
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(stat)[strings.LastIndexByte(string(stat), ')')+1:])
	if f[2] != strconv.Itoa(pid) || f[3] != strconv.Itoa(pid) {
		t.Errorf("process group %s, session %s; want both %d (own session)", f[2], f[3], pid)
	}
	if res.Attrs[attrStartTime] != f[19] || res.Attrs[attrPGID] != strconv.Itoa(pid) {
		t.Errorf("Attrs start_time %q pgid %q; /proc says %s and %d", res.Attrs[attrStartTime], res.Attrs[attrPGID], f[19], pid)
	}
	logPath := filepath.Join(b.Dir, LogName)
	if res.Attrs[attrLog] != logPath || res.Attrs[attrURL] != fmt.Sprintf("http://127.0.0.1:%d", port) || res.Attrs[attrConfigHash] == "" {
		t.Errorf("Attrs = %v", res.Attrs)
	}
	if out, _ := os.ReadFile(logPath); !strings.Contains(string(out), "listening on 127.0.0.1:") {
		t.Errorf("service.log lacks the service's output:\n%s", out)
	}
	for _, want := range []string{fmt.Sprintf("started pid %d", pid), "ready after", "check 1 passed: POST"} {
		if !strings.Contains(b.Log.(fmt.Stringer).String(), want) {
			t.Errorf("build log lacks %q:\n%s", want, b.Log)
		}
	}
	if got := res.Exports["pid"]; !got.RawEquals(cty.NumberIntVal(int64(pid))) {
		t.Errorf("Exports[pid] = %#v, want %d", got, pid)
	}
	if res.Digest != digest(res.Attrs[attrConfigHash]) {
		t.Errorf("Digest %q is not the config digest", res.Digest)
	}
}

func TestBuildStringCommandWithTCPReadiness(t *testing.T) {
	port := freePort(t)
	b := newBuild(t, decode(t, fmt.Sprintf(`
command = "exec '%s' -test.run='^TestHelperProcess$'"
env     = { KILN_SERVICE_HELPER = "serve", HELPER_PORT = "%d" }
port    = %d
`, os.Args[0], port, port)))
	if _, err := build(t, context.Background(), b); err != nil {
		t.Fatalf("Build: %v\nlog:\n%s", err, b.Log)
	}
	if got := ping(t, port); got != `"pong"` {
		t.Errorf("ping = %q", got)
	}
}

func TestProbeHealthyThenDown(t *testing.T) {
	port := freePort(t)
	b := newBuild(t, decode(t, sandbox{mode: "serve", port: port}.hcl()))
	res, err := build(t, context.Background(), b)
	if err != nil {
		t.Fatalf("Build: %v\nlog:\n%s", err, b.Log)
	}
	s := testKind()
	prev := &kind.Record{Attrs: res.Attrs, Dir: b.Dir}

	if pr, err := s.Probe(context.Background(), &b.Node, nil); err != nil || pr.Down != "" {
		t.Errorf("Probe without a record = %+v, %v; want nothing to report", pr, err)
	}
	if pr, err := s.Probe(context.Background(), &b.Node, prev); err != nil || pr.Down != "" {
		t.Errorf("Probe of a healthy service: Down %q, err %v", pr.Down, err)
	}

	// The process runs but its readiness probe fails: a node whose ping path
	// answers 404.
	wrong := newBuild(t, decode(t, sandbox{mode: "serve", port: port,
		ready: fmt.Sprintf(`url = "http://127.0.0.1:%d/v1/missing"`, port)}.hcl()))
	if pr, _ := s.Probe(context.Background(), &wrong.Node, prev); !strings.Contains(pr.Down, "status 404") {
		t.Errorf("Probe with a failing ready probe: Down = %q, want it to name status 404", pr.Down)
	}

	pid, _ := strconv.Atoi(res.Attrs[attrPID])
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitUntilGone(t, pid)
	pr, err := s.Probe(context.Background(), &b.Node, prev)
	if err != nil || !strings.Contains(pr.Down, fmt.Sprintf("process %d", pid)) {
		t.Errorf("Probe after kill: Down %q, err %v; want it to say process %d is gone", pr.Down, err, pid)
	}
}

func TestNeverReadyFailsWithLogTailAndLeavesNoProcess(t *testing.T) {
	port := freePort(t)
	b := newBuild(t, decode(t, sandbox{mode: "unready", port: port, ready: fmt.Sprintf(`
    url      = "http://127.0.0.1:%d/v1/ping"
    interval = "50ms"
    timeout  = "1s"`, port)}.hcl()))
	_, err := build(t, context.Background(), b)
	if err == nil {
		t.Fatal("Build of a service that never gets ready succeeded")
	}
	for _, want := range []string{"not ready after 1s", "status 503, expected 200", `"warming up\n"`, "last 20 lines of", "loading shard 30/30"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "loading shard 01/30") {
		t.Errorf("error holds more than the log's last 20 lines:\n%v", err)
	}
	waitUntilGone(t, startedPID(t, b.Log.(fmt.Stringer).String()))
}

func TestCheckMismatchNamesField(t *testing.T) {
	port := freePort(t)
	b := newBuild(t, decode(t, sandbox{mode: "serve", port: port, python: python(t), checks: helloCheck(port, "Goodbye\n")}.hcl()))
	_, err := build(t, context.Background(), b)
	if err == nil {
		t.Fatal("Build with a failing check succeeded")
	}
	want := `check 1 failed: POST http://127.0.0.1:` + strconv.Itoa(port) + `/run_code: field "run_result.stdout": expected "Goodbye\n", got "Hello, world!\n"`
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error = %v\nwant it to contain %s", err, want)
	}
	waitUntilGone(t, startedPID(t, b.Log.(fmt.Stringer).String()))
}

func TestPortInUseFailsBeforeStarting(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	b := newBuild(t, decode(t, sandbox{mode: "serve", port: port}.hcl()))
	_, err = build(t, context.Background(), b)
	want := fmt.Sprintf("port %d already in use by pid %d", port, os.Getpid())
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Build = %v, want an error containing %q", err, want)
	}
	if strings.Contains(b.Log.(fmt.Stringer).String(), "started pid") {
		t.Errorf("a process was started although the port was taken:\n%s", b.Log)
	}
	if _, err := os.Stat(filepath.Join(b.Dir, LogName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("service.log exists (%v): the service was started", err)
	}
}

func TestRestartStopsPreviousAndKeepsDigest(t *testing.T) {
	port := freePort(t)
	cfg := decode(t, sandbox{mode: "serve", port: port}.hcl())
	first := newBuild(t, cfg)
	old, err := testKind().Build(context.Background(), first)
	if err != nil {
		t.Fatalf("first Build: %v\nlog:\n%s", err, first.Log)
	}
	oldPID, _ := strconv.Atoi(old.Attrs[attrPID])

	second := newBuild(t, cfg)
	second.Previous = &kind.Record{Digest: old.Digest, Dir: first.Dir, Attrs: old.Attrs}
	res, err := build(t, context.Background(), second)
	if err != nil {
		t.Fatalf("restart: %v\nlog:\n%s", err, second.Log)
	}
	if !gone(oldPID) {
		t.Errorf("the previous process %d still runs after the restart", oldPID)
	}
	if res.Attrs[attrPID] == old.Attrs[attrPID] {
		t.Errorf("restart kept pid %s", old.Attrs[attrPID])
	}
	if res.Digest != old.Digest {
		t.Errorf("restart with the same configuration changed the digest: %s -> %s", old.Digest, res.Digest)
	}
	if got := ping(t, port); got != `"pong"` {
		t.Errorf("ping after restart = %q", got)
	}
}

func TestProcessThatExitsFailsFast(t *testing.T) {
	port := freePort(t)
	// A ready timeout of 10 minutes: only noticing the exit lets this pass.
	b := newBuild(t, decode(t, sandbox{mode: "exit", port: port, ready: fmt.Sprintf(`
    url     = "http://127.0.0.1:%d/v1/ping"
    timeout = "10m"`, port)}.hcl()))
	_, err := build(t, context.Background(), b)
	if err == nil {
		t.Fatal("Build of a service that exits succeeded")
	}
	for _, want := range []string{"exited (exit status 3) before it was ready", `fatal: sandbox config "missing" not found`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

func TestCancelWhileWaitingStopsProcess(t *testing.T) {
	port := freePort(t)
	b := newBuild(t, decode(t, sandbox{mode: "unready", port: port}.hcl()))
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		// Cancel once the service is up and failing its probe.
		defer cancel()
		for range 500 {
			if out, _ := os.ReadFile(filepath.Join(b.Dir, LogName)); strings.Contains(string(out), "listening on") {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	_, err := build(t, ctx, b)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Build = %v, want context.Canceled", err)
	}
	waitUntilGone(t, startedPID(t, b.Log.(fmt.Stringer).String()))
}
