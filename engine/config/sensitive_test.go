package config

import (
	"strconv"
	"strings"
	"testing"

	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/providers/exec"
	"github.com/kilnbuild/kiln/providers/service"
)

// TestSensitiveVariableInCommandIsRefused: a sensitive variable's value in
// a command, however it gets there, is an error at the command's line with
// the env form; in env, or a value read with env(), it is not.
func TestSensitiveVariableInCommandIsRefused(t *testing.T) {
	const vars = `
variable "token" {
  type      = string
  sensitive = true
  default   = "hunter2"
}
variable "plain" {
  default = "x"
}
locals {
  login = "login ${var.token}"
}
`
	tests := []struct {
		name, block string
		line        string // "" when accepted
		list        bool
	}{
		{"string", `exec "a" { command = "curl -u me:${var.token} url" }`, "p.hcl:14", false},
		{"list", `exec "a" { command = ["curl", "-u", var.token] }`, "p.hcl:14", true},
		{"through a local", `exec "a" { command = local.login }`, "p.hcl:14", false},
		{"through a function", `exec "a" { command = ["tool", base64encode(upper(var.token))] }`, "p.hcl:14", true},
		{"service", "service \"s\" {\n  command = [\"server\", var.token]\n}", "p.hcl:15", true},
		{"service stop command", "service \"s\" {\n  command = [\"server\"]\n  stop {\n    command = \"kill --token ${var.token}\"\n  }\n}", "p.hcl:17", false},
		{"in env", `exec "a" {
  command = "curl -u me:$TOKEN url"
  env     = { TOKEN = var.token }
}`, "", false},
		{"a plain variable", `exec "a" { command = "echo ${var.plain}" }`, "", false},
		{"read with env()", `exec "a" { command = "echo ${env("KILN_TEST_PATH", "/data")}" }`, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "p.hcl", vars+"\n"+tt.block+"\n")
			p, diags := Load(dir, Options{Kinds: []kind.Kind{exec.New(), service.New()}, Env: []string{}})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			_, diags = p.Evaluate(p.Nodes[0], staticValues{p}, "/out")
			if tt.line == "" {
				if diags.HasErrors() {
					t.Fatalf("refused: %v", diags)
				}
				return
			}
			if len(diags) != 1 || diags[0].Summary != "Sensitive value in a command" {
				t.Fatalf("diags = %v, want one Sensitive value in a command", diags)
			}
			d := diags[0]
			if got := d.Subject.Filename[strings.LastIndex(d.Subject.Filename, "/")+1:] + ":" + strconv.Itoa(d.Subject.Start.Line); got != tt.line {
				t.Errorf("at %s, want %s", got, tt.line)
			}
			for _, want := range []string{"holds var.token, which is declared sensitive", "env = { TOKEN = var.token }", "$TOKEN"} {
				if !strings.Contains(d.Detail, want) {
					t.Errorf("detail %q lacks %q", d.Detail, want)
				}
			}
			if strings.Contains(d.Detail, "run it through one") != tt.list {
				t.Errorf("detail %q: the advice for a list command is given = %v, want %v", d.Detail, !tt.list, tt.list)
			}
			if strings.Contains(d.Detail, "hunter2") {
				t.Errorf("detail %q shows the value", d.Detail)
			}
		})
	}
}
