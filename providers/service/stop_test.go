package service

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/proc"
)

func TestRecycledPidIsDownAndNeverSignalled(t *testing.T) {
	pid := startSleeper(t)
	st, err := proc.ReadStat(pid)
	if err != nil {
		t.Fatal(err)
	}
	attrs := map[string]string{
		attrPID: strconv.Itoa(pid), attrPGID: strconv.Itoa(pid),
		attrStartTime: strconv.FormatUint(st.Start+1, 10), // another process's start time
	}
	s := testKind()
	b := newBuild(t, decode(t, `command = ["true"]`))
	pr, err := s.Probe(context.Background(), &b.Node, &kind.Record{Attrs: attrs})
	if err != nil || !strings.Contains(pr.Down, "now belongs to a process started") {
		t.Errorf("Probe of a recycled pid: Down %q, err %v", pr.Down, err)
	}
	if err := s.Stop(context.Background(), &b.Node, &kind.Record{Attrs: attrs}); err != nil {
		t.Errorf("Stop of a recycled pid: %v", err)
	}
	if gone(pid) {
		t.Errorf("Stop signalled process %d, which is not the recorded service", pid)
	}
}

func TestStopKillsProcessGroupAndIsIdempotent(t *testing.T) {
	port := freePort(t)
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	b := newBuild(t, decode(t, sandbox{mode: "serve", port: port,
		extraEnv: fmt.Sprintf("HELPER_CHILD_PIDFILE = %q", pidFile)}.hcl()))
	res, err := testKind().Build(context.Background(), b)
	if err != nil {
		t.Fatalf("Build: %v\nlog:\n%s", err, b.Log)
	}
	raw, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	child, _ := strconv.Atoi(string(raw))
	pid, _ := strconv.Atoi(res.Attrs[attrPID])
	if gone(child) || gone(pid) {
		t.Fatalf("service %d or its child %d is not running before Stop", pid, child)
	}

	rec := &kind.Record{Attrs: res.Attrs}
	if err := testKind().Stop(context.Background(), &b.Node, rec); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if !gone(pid) || !gone(child) {
		t.Errorf("after Stop: service %d gone %v, child %d gone %v; want both gone", pid, gone(pid), child, gone(child))
	}
	if err := testKind().Stop(context.Background(), &b.Node, rec); err != nil {
		t.Errorf("second Stop: %v, want success", err)
	}
	out, _ := os.ReadFile(res.Attrs[attrLog])
	if !strings.Contains(string(out), "kiln: sending SIGTERM to process group") {
		t.Errorf("service.log does not say how the service was stopped:\n%s", out)
	}
	if strings.Contains(string(out), "SIGKILL") {
		t.Errorf("SIGTERM did not reach the whole group; it took SIGKILL:\n%s", out)
	}
}

func TestStopCommandThenKillAfterGrace(t *testing.T) {
	tests := []struct {
		name, command string
		wantLog       string
	}{
		{"command stops it", `echo "stopping $KILN_SERVICE_PID" > "$MARKER"; kill -TERM -"$KILN_SERVICE_PGID"`, "kiln: stopping pid"},
		{"command leaves it running", `echo "stopping $KILN_SERVICE_PID" > "$MARKER"`, "sending SIGKILL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			port := freePort(t)
			marker := filepath.Join(t.TempDir(), "stopped")
			b := newBuild(t, decode(t, fmt.Sprintf(`
command = [%q, "-test.run=^TestHelperProcess$"]
env     = { KILN_SERVICE_HELPER = "serve", HELPER_PORT = "%d", MARKER = %q }
port    = %d
stop {
  command = %q
  grace   = "500ms"
}
`, os.Args[0], port, marker, port, tt.command)))
			res, err := testKind().Build(context.Background(), b)
			if err != nil {
				t.Fatalf("Build: %v\nlog:\n%s", err, b.Log)
			}
			pid, _ := strconv.Atoi(res.Attrs[attrPID])
			if err := testKind().Stop(context.Background(), &b.Node, &kind.Record{Attrs: res.Attrs}); err != nil {
				t.Fatalf("Stop: %v", err)
			}
			if !gone(pid) {
				t.Errorf("process %d still runs after Stop", pid)
			}
			if got, _ := os.ReadFile(marker); string(got) != fmt.Sprintf("stopping %d\n", pid) {
				t.Errorf("stop command wrote %q, want it to name pid %d", got, pid)
			}
			if out, _ := os.ReadFile(res.Attrs[attrLog]); !strings.Contains(string(out), tt.wantLog) {
				t.Errorf("service.log lacks %q:\n%s", tt.wantLog, out)
			}
		})
	}
}
