package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// TestFunctionExamples: every function a pipeline may call is documented,
// and its example evaluates to the documented result, so kiln help and
// docs/language.md cannot show a wrong answer.
func TestFunctionExamples(t *testing.T) {
	root := t.TempDir()
	for name, content := range map[string]string{
		"VERSION": "1.4.0\n", "greeting.tmpl": "Hello, ${name}!\n", "shards.txt": "a\n# a comment\nb\n",
		"data/a.fastq": "@a\n", "data/b.fastq": "@b\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("KILN_DOC_UNSET", "")
	os.Unsetenv("KILN_DOC_UNSET")
	fs := functionTable(root)
	for name := range docFunctions() {
		if _, ok := fs[name]; !ok {
			t.Errorf("%s is documented but not callable", name)
		}
	}
	for name := range functionDocs {
		if _, ok := fs[name]; !ok {
			t.Errorf("functionDocs has %s, which is no function: remove it", name)
		}
	}
	ctx := &hcl.EvalContext{Functions: fs}
	for _, f := range Functions() {
		t.Run(f.Name, func(t *testing.T) {
			if f.Doc == "" || f.Example == "" || f.Result == "" {
				t.Fatalf("%s has no description, example or result: add them to functionDocs in functiondocs.go", f.Name)
			}
			got := evalText(t, f.Example, ctx)
			want := evalText(t, f.Result, &hcl.EvalContext{})
			if got != want {
				t.Errorf("%s evaluates to %s, the reference says %s", f.Example, got, want)
			}
		})
	}
}

func evalText(t *testing.T, src string, ctx *hcl.EvalContext) string {
	t.Helper()
	expr, diags := hclsyntax.ParseExpression([]byte(src), "example", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("%s: %v", src, diags)
	}
	v, diags := expr.Value(ctx)
	if diags.HasErrors() {
		t.Fatalf("%s: %v", src, diags)
	}
	v, _ = v.UnmarkDeep()
	if v.Type().IsSetType() || v.Type().IsListType() {
		v = cty.TupleVal(v.AsValueSlice())
	}
	return string(hclwrite.TokensForValue(v).Bytes())
}
