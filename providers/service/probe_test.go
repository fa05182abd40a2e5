package service

import (
	"strings"
	"testing"
)

func TestMismatch(t *testing.T) {
	sandboxReply := `{"status":"Success","message":"","run_result":{"status":"Finished","return_code":0,"stdout":"Hello, world!\n"},"files":{},"list":[{"a":1}]}`
	tests := []struct {
		name   string
		probe  probeConfig
		status int
		body   string
		want   string // "" = passes; else a part of the message
	}{
		{"status matches", probeConfig{status: 200}, 200, "", ""},
		{"status differs", probeConfig{status: 200}, 503, "warming up", "status 503, expected 200"},
		{"contains", probeConfig{status: 200, contains: "pong"}, 200, `"pong"`, ""},
		{"does not contain", probeConfig{status: 200, contains: "pong"}, 200, `"ping"`, `body does not contain "pong"`},
		{"json fields match", probeConfig{status: 200, json: map[string]string{
			"status": "Success", "run_result.stdout": "Hello, world!\n", "run_result.return_code": "0", "list.0.a": "1", "message": ""}},
			200, sandboxReply, ""},
		{"json field differs", probeConfig{status: 200, json: map[string]string{"status": "Success", "run_result.status": "Error"}},
			200, sandboxReply, `field "run_result.status": expected "Error", got "Finished"`},
		{"json field missing", probeConfig{status: 200, json: map[string]string{"run_result.stderr": ""}},
			200, sandboxReply, `field "run_result.stderr": expected "", got no such field`},
		{"json through a string", probeConfig{status: 200, json: map[string]string{"status.x": "1"}},
			200, sandboxReply, `field "status.x"`},
		{"json number", probeConfig{status: 200, json: map[string]string{"run_result.return_code": "1"}},
			200, sandboxReply, `expected "1", got "0"`},
		{"not json", probeConfig{status: 200, json: map[string]string{"status": "Success"}}, 200, "<html>", "response is not JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.probe.mismatch(tt.status, []byte(tt.body))
			if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
				t.Errorf("mismatch = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestExcerpt(t *testing.T) {
	long := strings.Repeat("x", excerptSize+50)
	if got := excerpt([]byte(long)); !strings.HasSuffix(got, `"...`) || len(got) != excerptSize+5 {
		t.Errorf("excerpt of a long body = %q", got)
	}
	if got := excerpt([]byte("a\nb")); got != `"a\nb"` {
		t.Errorf("excerpt = %s", got)
	}
}
