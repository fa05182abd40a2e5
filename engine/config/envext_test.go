package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/zclconf/go-cty/cty"
)

type noValues struct{}

func (noValues) NodeValue(addr.Node) (cty.Value, bool) { return cty.NilVal, false }

// TestEnvExtensions: env_prepend and env_append take a path or a list of
// paths per variable, referencing other nodes like any argument.
func TestEnvExtensions(t *testing.T) {
	p, diags := load(t, `
exec "verl" { command = "true" }
exec "a" {
  command     = "true"
  env_prepend = { PYTHONPATH = [exec.verl.out, "/opt/x"], PATH = "/opt/bin" }
  env_append  = { LD_LIBRARY_PATH = ["", "/opt/lib"] }
}
`, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	n := p.Node(addr.Node{Kind: "exec", Name: "a"})
	if got := n.Deps; len(got) != 1 || got[0].Name != "verl" {
		t.Errorf("deps = %v, want exec.verl: a reference in env_prepend is an edge", got)
	}
	ev, diags := p.Evaluate(n, noValues{}, "/out")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	before, after := ev.EnvExtensions()
	want := map[string][]string{"PYTHONPATH": {p.OutPath(addr.Node{Kind: "exec", Name: "verl"}), "/opt/x"}, "PATH": {"/opt/bin"}}
	if d := cmp.Diff(want, before); d != "" {
		t.Errorf("prepend (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string][]string{"LD_LIBRARY_PATH": {"/opt/lib"}}, after); d != "" {
		t.Errorf("append (-want +got):\n%s", d)
	}
}

func TestEnvExtensionErrors(t *testing.T) {
	cases := []struct{ name, arg, want string }{
		{"not a map", `env_prepend = ["/x"]`, "maps a variable's name to a path or a list of paths"},
		{"bad name", `env_append = { "MY-VAR" = "/x" }`, `names "MY-VAR", which is not a variable name`},
		{"not a path", `env_prepend = { PATH = { a = 1 } }`, "gives PATH a value that is neither a path nor a list of paths"},
		{"null path", `env_prepend = { PATH = [null] }`, "gives PATH a null path"},
		{"set and extended", "env = { PATH = \"/bin\" }\n  env_prepend = { PATH = \"/x\" }", "env sets PATH outright and env_prepend extends it"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, diags := load(t, "exec \"a\" {\n  command = \"true\"\n  "+c.arg+"\n}\n", Options{})
			if !diags.HasErrors() {
				_, diags = p.Evaluate(p.Nodes[0], noValues{}, "/out")
			}
			if !strings.Contains(diags.Error(), c.want) {
				t.Errorf("diagnostics %q do not contain %q", diags.Error(), c.want)
			}
		})
	}
}
