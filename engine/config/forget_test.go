package config

import (
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// TestForgetSyntax: once the node blocks' syntax is let go, outputs still
// evaluate, a node is refused with a diagnostic (not a panic), and the
// files keep their bytes for the source lines of diagnostics.
func TestForgetSyntax(t *testing.T) {
	p, diags := load(t, `
exec "a" { command = "echo a > $KILN_OUT/a" }
output "where" { value = "${exec.a.out}/a" }
`, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if _, d := p.Evaluate(p.Nodes[0], noValues{}, "/out"); d.HasErrors() {
		t.Fatalf("before: %s", d)
	}
	p.ForgetSyntax()
	_, d := p.Evaluate(p.Nodes[0], noValues{}, "/out")
	if !d.HasErrors() || !strings.Contains(d.Error(), "no longer held") {
		t.Errorf("evaluating exec.a after ForgetSyntax: %v, want a refusal", d)
	}
	for name, f := range p.Files {
		if len(f.Bytes) == 0 || f.Body != nil {
			t.Errorf("%s after ForgetSyntax: %d bytes, body %v; want its bytes and no tree", name, len(f.Bytes), f.Body)
		}
	}
	vals := staticValues{p}
	v, d := p.EvaluateOutput(p.Outputs[0], vals)
	if d.HasErrors() || v.Type() != cty.String || !strings.HasSuffix(v.AsString(), "/a") {
		t.Errorf("output after ForgetSyntax: %#v %s", v, d)
	}
}
