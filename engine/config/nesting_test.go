package config

import (
	"path/filepath"
	"strings"
	"testing"
)

func nested(open, close string, n int, inner string) string {
	return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
}

// TestDeepNestingIsRefusedWithItsPlace: a file nested deeper than
// MaxNesting is refused before the parser recurses (100,000 parentheses
// used to kill kiln with a stack overflow), with the file and line where
// the depth passes the bound; brackets in strings, comments and heredoc
// text do not count.
func TestDeepNestingIsRefusedWithItsPlace(t *testing.T) {
	cases := []struct {
		name, expr string
		refused    bool
		line       string // where the depth passes the bound
	}{
		{"100,000 parentheses", nested("(", ")", 100000, "1"), true, "p.hcl:3,"},
		{"one past the bound", nested("(", ")", MaxNesting+1, "1"), true, "p.hcl:3,1013-1014"},
		{"at the bound", nested("(", ")", MaxNesting-2, "1"), false, ""}, // inside exec { } and [ ]
		{"lists and objects", nested("[", "]", 600, nested("{a = ", "}", 600, "1")), true, "p.hcl:3,"},
		{"interpolations", nested(`"${`, `}"`, 2000, "1"), true, "p.hcl:3,"},
		{"directives", `<<EOT` + "\n" + nested("%{ if true }", "%{ endif }", 2000, "x") + "\nEOT\n", true, "p.hcl:4,"},
		{"heredoc interpolations", "<<-EOT\n" + nested("${(", ")}", 1000, "1") + "\n  EOT\n", true, "p.hcl:4,"},
		{"brackets in a string", `"` + strings.Repeat("((([[[{{{", 2000) + `"`, false, ""},
		{"escaped interpolations", `"` + strings.Repeat("$${", 2000) + `"`, false, ""},
		{"brackets in heredoc text", "<<EOT\n" + strings.Repeat("((([[[{{{\n", 2000) + "EOT\n", false, ""},
		{"brackets in comments", "1 # " + strings.Repeat("(", 2000) + "\n /* " + strings.Repeat("[", 2000) + " */", false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := "exec \"a\" {\n  command = [\"x\"]\n  env = { X = " + c.expr + " }\n}\n"
			_, diags := load(t, src, Options{})
			if !c.refused {
				for _, d := range diags {
					if d.Summary == "Nested too deeply" {
						t.Fatalf("refused: %s", diags.Error())
					}
				}
				return
			}
			if !diags.HasErrors() || !strings.Contains(diags.Error(), c.line) || !strings.Contains(diags.Error(), "nest more than 1000 deep") {
				t.Fatalf("diags = %.300s, want %s and nest more than 1000 deep", diags.Error(), c.line)
			}
		})
	}
}

// TestDeepNestingElsewhere: variable files, -var values and template files
// are bounded the same way.
func TestDeepNestingElsewhere(t *testing.T) {
	dir := t.TempDir()
	deep := nested("[", "]", 100000, "1")
	json := write(t, dir, "deep.json", `{"v": `+deep+`}`)
	yaml := write(t, dir, "deep.yaml", "v: "+deep+"\n")
	hclFile := write(t, dir, "deep.tfvars", "\nv = "+deep+"\n")
	tmpl := write(t, dir, "deep.tmpl", nested("${(", ")}", 100000, "1"))
	pipeline := "variable \"v\" {\n  default = 1\n}\nexec \"a\" { command = [\"x\", \"${var.v}\"] }\n"
	for name, o := range map[string]Options{
		"deep.json":   {VarFiles: []string{json}},
		"deep.yaml":   {VarFiles: []string{yaml}},
		"deep.tfvars": {VarFiles: []string{hclFile}},
		"-var v":      {Vars: map[string]string{"v": deep}},
	} {
		t.Run(name, func(t *testing.T) {
			_, diags := load(t, pipeline, o)
			if !strings.Contains(diags.Error(), name) || !strings.Contains(diags.Error(), "Nested too deeply") {
				t.Errorf("diags = %.300s, want %s: Nested too deeply", diags.Error(), name)
			}
		})
	}
	t.Run("templatefile", func(t *testing.T) {
		p, diags := load(t, "exec \"a\" { command = templatefile(\""+filepath.ToSlash(tmpl)+"\", {}) }\n", Options{})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		_, diags = p.Evaluate(p.Nodes[0], staticValues{p}, "/out")
		if !strings.Contains(diags.Error(), "Nested too deeply") {
			t.Errorf("diags = %.300s, want Nested too deeply", diags.Error())
		}
	})
}

func BenchmarkCheckNesting(b *testing.B) {
	src := []byte(strings.Repeat("exec \"a\" {\n  command = \"echo ${var.x} > $KILN_OUT/o # (\"\n  env = { A = [1, 2, (3)] }\n}\n", 100000))
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if d := CheckNesting(src, "p.hcl", false); d.HasErrors() {
			b.Fatal(d)
		}
	}
}
