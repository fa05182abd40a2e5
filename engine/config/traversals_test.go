package config

import (
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// TestVariablesOfIsHCLs holds variablesOf to HCL's own Variables, traversal
// by traversal, ranges included, for the expressions it reads itself and
// for those it leaves to HCL (a for expression's own names are not
// references, which only HCL's walk knows).
func TestVariablesOfIsHCLs(t *testing.T) {
	for _, src := range []string{
		`"plain text"`,
		`exec.a.out`,
		`"${exec.a.out}"`,
		`"cat ${exec.a.out}/x ${exec.b.out}/y | ${local.tool} > $KILN_OUT/o"`,
		`["src/a.txt", "${var.dir}/b.txt", exec.c.out]`,
		`[]`,
		`42`,
		`"${exec.a[each.key].out}"`,
		`[for s in var.samples : "${s}.txt"]`,
		`{ a = exec.a.out }`,
		`upper("${exec.a.out}")`,
		`"%{ for x in var.xs }${x}%{ endfor }"`,
		`["a", [for s in local.l : s], exec.b.out]`,
	} {
		e, diags := hclsyntax.ParseExpression([]byte(src), "x.hcl", hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatalf("%s: %s", src, diags)
		}
		got, want := variablesOf(e), e.Variables()
		if len(got) != len(want) {
			t.Errorf("%s: %d traversals, HCL finds %d", src, len(got), len(want))
			continue
		}
		for i := range want {
			if got[i].RootName() != want[i].RootName() || got[i].SourceRange() != want[i].SourceRange() || len(got[i]) != len(want[i]) {
				t.Errorf("%s: traversal %d is %s at %s, HCL's is %s at %s", src, i, got[i].RootName(), got[i].SourceRange(), want[i].RootName(), want[i].SourceRange())
			}
		}
	}
}
