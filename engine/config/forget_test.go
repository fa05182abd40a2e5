package config

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
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

// TestForgetFilesKeepsTheContextOfDiagnostics: with the files' trees let
// go, a diagnostic still names the block it is in, as HCL's writer does
// with the tree, and says nothing of a place between blocks.
func TestForgetFilesKeepsTheContextOfDiagnostics(t *testing.T) {
	p, diags := load(t, `
exec "a" { command = "echo a > $KILN_OUT/a" }

exec "b" {
  command = "echo b > $KILN_OUT/b"
}
`, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var name string
	for n := range p.Files {
		name = n
	}
	src := string(p.Files[name].Bytes)
	at := func(s string) *hcl.Range {
		i := strings.Index(src, s)
		return &hcl.Range{Filename: name, Start: hcl.Pos{Line: 1 + strings.Count(src[:i], "\n"), Column: 1, Byte: i},
			End: hcl.Pos{Line: 1 + strings.Count(src[:i], "\n"), Column: 2, Byte: i + 1}}
	}
	text := func() string {
		var out strings.Builder
		w := hcl.NewDiagnosticTextWriter(&out, p.Files, 100, false)
		for _, s := range []string{"echo a", "echo b", "\n\nexec \"b\""} {
			_ = w.WriteDiagnostic(&hcl.Diagnostic{Severity: hcl.DiagError, Summary: "at " + s, Subject: at(s)})
		}
		return out.String()
	}
	before := text()
	p.ForgetFiles()
	p.ForgetFiles() // a second time keeps the outline
	if after := text(); after != before {
		t.Errorf("diagnostics after ForgetFiles:\n%s\nwant, as with the trees:\n%s", after, before)
	}
	for _, want := range []string{`line 2, in exec "a":`, `line 5, in exec "b":`} {
		if !strings.Contains(before, want) {
			t.Errorf("diagnostics do not say %q:\n%s", want, before)
		}
	}
}
