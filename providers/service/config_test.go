package service

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/zclconf/go-cty/cty"
)

func TestDecodeConfig(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want config
	}{
		{
			name: "list command, defaults",
			src:  `command = ["uvicorn", "app:app", "--port", 8080]`,
			want: config{command: []string{"uvicorn", "app:app", "--port", "8080"}, dir: "/out",
				stop: stopConfig{signal: syscall.SIGTERM, grace: 10 * time.Second}},
		},
		{
			name: "string command, relative dir, TCP readiness from port and url host",
			src: `
command = "make run-online"
dir     = "sandbox"
url     = "http://localhost:8080"
port    = 8080
env     = { SANDBOX_CONFIG = "local" }`,
			want: config{command: []string{"/bin/sh", "-c", "make run-online"}, dir: "/root/sandbox",
				env: map[string]string{"SANDBOX_CONFIG": "local"}, url: "http://localhost:8080", port: 8080,
				ready: &probeConfig{tcp: "localhost:8080", interval: 250 * time.Millisecond, timeout: 60 * time.Second},
				stop:  stopConfig{signal: syscall.SIGTERM, grace: 10 * time.Second}},
		},
		{
			name: "ready, check and stop blocks",
			src: `
command = ["srv"]
dir     = "/srv"
ready {
  url      = "http://127.0.0.1:8080/v1/ping"
  contains = "pong"
  interval = "1s"
  timeout  = "2m"
}
check {
  url     = "http://127.0.0.1:8080/run_code"
  method  = "post"
  body    = "{}"
  headers = { "Content-Type" = "application/json" }
  status  = 201
  json    = { "run_result.stdout" = "hi\n" }
}
stop {
  signal  = "int"
  command = ["srvctl", "stop"]
  grace   = "3s"
}`,
			want: config{command: []string{"srv"}, dir: "/srv",
				ready: &probeConfig{url: "http://127.0.0.1:8080/v1/ping", method: "GET", status: 200, contains: "pong",
					interval: time.Second, timeout: 2 * time.Minute},
				checks: []probeConfig{{url: "http://127.0.0.1:8080/run_code", method: "POST", body: "{}",
					headers: map[string]string{"Content-Type": "application/json"}, status: 201,
					json: map[string]string{"run_result.stdout": "hi\n"}, interval: 250 * time.Millisecond, timeout: 30 * time.Second}},
				stop: stopConfig{signal: syscall.SIGINT, command: []string{"srvctl", "stop"}, grace: 3 * time.Second}},
		},
		{
			name: "ready without url probes the port",
			src: `
command = ["srv"]
port    = 9000
ready {
  timeout = "5s"
}`,
			want: config{command: []string{"srv"}, dir: "/out", port: 9000,
				ready: &probeConfig{tcp: "127.0.0.1:9000", method: "GET", status: 200, interval: 250 * time.Millisecond, timeout: 5 * time.Second},
				stop:  stopConfig{signal: syscall.SIGTERM, grace: 10 * time.Second}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeConfig(decode(t, tt.src), "/root", "/out")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, *got, cmp.AllowUnexported(config{}, probeConfig{}, stopConfig{})); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeConfigErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{`command = []`, "command is empty"},
		{`command = ""`, "command is empty"},
		{`command = { a = 1 }`, "must be a list of strings or a string"},
		{"command = [\"srv\"]\nport = 70000", "port 70000 is out of range"},
		{"command = [\"srv\"]\nport = 80.5", "port must be a whole number"},
		{"command = [\"srv\"]\nready {\n timeout = \"5s\"\n}", "give a url to probe, or set port"},
		{"command = [\"srv\"]\nready {\n url = \"http://x\"\n timeout = \"soon\"\n}", `timeout = "soon" is not a positive duration`},
		{"command = [\"srv\"]\ncheck {\n method = \"GET\"\n}", "check 1: url is required"},
		{"command = [\"srv\"]\nstop {\n signal = \"SIGNOPE\"\n}", `unknown signal "SIGNOPE"`},
	}
	for _, tt := range tests {
		_, err := decodeConfig(decode(t, tt.src), "/root", "/out")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("decodeConfig(%q) = %v, want an error containing %q", tt.src, err, tt.want)
		}
	}
	if _, err := decodeConfig(cty.UnknownVal(hcldec.ImpliedType(New().Spec())), "/", "/"); err == nil {
		t.Error("decodeConfig of an unknown value succeeded")
	}
}

func TestConfigHashFollowsConfigOnly(t *testing.T) {
	base := `command = ["srv", "--port", "8080"]` + "\nport = 8080\n"
	h := func(src string) string {
		t.Helper()
		s, err := configHash(decode(t, src))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if first, second := h(base), h(base); first != second {
		t.Error("the same configuration hashes differently")
	}
	for _, changed := range []string{
		`command = ["srv", "--port", "8081"]` + "\nport = 8080\n",
		base + `env = { A = "1" }`,
		base + "stop {\n grace = \"1s\"\n}",
		base + "check {\n url = \"http://127.0.0.1:8080/\"\n}",
	} {
		if h(changed) == h(base) {
			t.Errorf("changing the configuration to %q kept the hash", changed)
		}
	}
}

func TestExports(t *testing.T) {
	n := &kind.Node{Config: decode(t, `
command = ["srv"]
url     = "http://127.0.0.1:8080"`), Out: "/p/.kiln/out/service.sandbox"}
	got := New().Exports(n)
	want := map[string]cty.Value{
		"url": cty.StringVal("http://127.0.0.1:8080"),
		"pid": cty.UnknownVal(cty.Number),
		"log": cty.StringVal("/p/.kiln/out/service.sandbox/service.log"),
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b cty.Value) bool { return a.RawEquals(b) })); diff != "" {
		t.Errorf("Exports (-want +got):\n%s", diff)
	}
	n.Config = decode(t, `command = ["srv"]`)
	if u := New().Exports(n)["url"]; !u.IsNull() {
		t.Errorf("url without a url attribute = %#v, want null", u)
	}
}

func TestEnviron(t *testing.T) {
	got := environ([]string{"PATH=/bin", "HOME=/h", "KILN_OUT=/o"}, map[string]string{"HOME": "/other", "B": "2", "A": "1"})
	want := []string{"PATH=/bin", "KILN_OUT=/o", "A=1", "B=2", "HOME=/other"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("environ (-want +got):\n%s", diff)
	}
}

func TestParseSignal(t *testing.T) {
	for in, want := range map[string]syscall.Signal{"SIGTERM": syscall.SIGTERM, "term": syscall.SIGTERM, "SIGINT": syscall.SIGINT, " hup ": syscall.SIGHUP, "SIGKILL": syscall.SIGKILL} {
		if got, err := parseSignal(in); err != nil || got != want {
			t.Errorf("parseSignal(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
}
