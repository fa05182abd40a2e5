package config

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// plainValues are argument values: the plain forms parsePlain reads, and
// near ones it must leave to the HCL parser (or read exactly as it does).
var plainValues = []string{
	`"cksum < src/n_0_0.txt > $KILN_OUT/out.txt"`,
	`"cat ${exec.n_2_1.out}/out.txt ${exec.n_2_45.out}/out.txt | cksum > $KILN_OUT/out.txt"`,
	`"${exec.a.out}"`, `"${exec.a.out}${exec.b-c.out}"`, `"x${local.y}"`, `""`, `"$"`, `"a$"`, `"%"`, `"100% $ x"`,
	`["src/a.txt"]`, `["src/a.txt", "src/b.txt"]`, `[]`, `[ "a" ,"b" ]`, `["${exec.a.out}/o"]`,
	`"$${x}"`, `"%{if true}a%{endif}"`, `"%%{x}"`, `"a\"b"`, `"a\nb"`, `"${ exec.a.out }"`, `"${exec.a.0}"`,
	`"${true}"`, `"${null}"`, `"${exec.a[0]}"`, `"${upper(local.x)}"`, `"${_x.y}"`, `"é"`, "\"a\tb\"",
	`["a",]`, `["a"`, `[`, `"unterminated`, `1`, `true`, `exec.a.out`, `{ a = 1 }`, `"a" # c`, `"a" // c`,
	"<<EOT\nx\nEOT", `"${exec.a.out"`, `"a" "b"`, `["a" "b"]`, `"${}"`, `"${exec.}"`, `"${exec..a}"`,
}

// plainBlock writes one block, plain or nearly.
func plainBlock(r *rand.Rand, i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "exec \"n_%d\" {\n", i)
	switch r.IntN(12) {
	case 0:
		fmt.Fprintf(&b, "exec \"n_%d\" { command = \"true\" }\n", i)
		return b.String()
	case 1:
		b.Reset()
		fmt.Fprintf(&b, "exec n%d {\n", i)
	case 2:
		b.Reset()
		fmt.Fprintf(&b, "service \"a\" \"b%d\"  {  \n", i)
	case 3:
		b.Reset()
		fmt.Fprintf(&b, "locals {\n")
	}
	for j := range r.IntN(4) {
		sp := strings.Repeat(" ", r.IntN(3))
		switch r.IntN(15) {
		case 0:
			b.WriteString("  # a comment\n")
		case 1:
			b.WriteString("  nested \"x\" {\n    a = \"b\"\n  }\n")
		case 2:
			b.WriteString("  command = \"a\"\n  command = \"b\"\n")
		case 3:
			b.WriteString("\n")
		default:
			fmt.Fprintf(&b, "  a%d%s=%s%s%s\n", j, sp, sp, plainValues[r.IntN(len(plainValues))], sp)
		}
	}
	b.WriteString([]string{"}\n", "}\n", "}\n", "}\n\n", "  }\n", "} \n", "}"}[r.IntN(7)])
	return b.String()
}

// TestPlainIsTheParsersTree is a property: where parsePlain reads a
// piece, the HCL parser parses it with no diagnostic into the same tree,
// every position included; that tree is plain (plainTree), and trees with
// calls or indexes are not.
func TestPlainIsTheParsersTree(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	read, declined := 0, 0
	for round := range 4000 {
		var src strings.Builder
		if r.IntN(4) == 0 {
			src.WriteString("# Layered benchmark DAG.\n\n")
		}
		for i := range 1 + r.IntN(4) {
			if r.IntN(3) > 0 {
				fmt.Fprintf(&src, "exec \"p_%d\" {\n  command = %s\n}\n\n", i, plainValues[r.IntN(15)])
				continue
			}
			src.WriteString(plainBlock(r, i))
		}
		if r.IntN(10) == 0 {
			src.WriteString([]string{"x = 1\n", "\t\n", "\r\n", "/* c */\n", "// c\n", "}\n", "#é\n", "exec"}[r.IntN(8)])
		}
		b := []byte(src.String())
		start := hcl.Pos{Line: 1, Column: 1, Byte: 0}
		if round%2 == 1 {
			start = hcl.Pos{Line: 1 + r.IntN(1000), Column: 1, Byte: r.IntN(100000)}
		}
		got, ok := parsePlain(b, "p.hcl", start)
		if !ok {
			declined++
			continue
		}
		read++
		if !plainTree(got) {
			t.Fatalf("round %d: a tree read plainly is not plain:\n%s", round, b)
		}
		want, diags := hclsyntax.ParseConfig(b, "p.hcl", start)
		if len(diags) > 0 {
			t.Fatalf("round %d: read plainly, the parser reports %s\n%s", round, diags.Error(), b)
		}
		if !reflect.DeepEqual(want.Body, got) {
			t.Fatalf("round %d: the tree differs from the parser's (-parser +plain):\n%s\n%s", round,
				cmp.Diff(want.Body, got, cmpopts.IgnoreUnexported(hclsyntax.Body{}), cmp.Comparer(func(a, b cty.Value) bool { return a.RawEquals(b) })), b)
		}
	}
	t.Logf("%d pieces read plainly, %d left to the parser", read, declined)
	for _, tc := range []struct {
		src   string
		plain bool
	}{
		{"exec \"a\" {\n  command = \"x ${exec.b.out}\"\n  inputs = [\"a\", \"${exec.c.out}\"]\n}\n", true},
		{"exec \"a\" {\n  command = \"${upper(\"x\")}\"\n}\n", false},
		{"exec \"a\" {\n  command = exec.m[\"k\"].out\n}\n", false},
		{"exec \"a\" {\n  n = 1 + 2\n}\n", false},
	} {
		f, diags := hclsyntax.ParseConfig([]byte(tc.src), "p.hcl", hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		if got := plainTree(f.Body.(*hclsyntax.Body)); got != tc.plain {
			t.Errorf("plainTree = %v, want %v, for\n%s", got, tc.plain, tc.src)
		}
	}
	if read < 1000 || declined < 1000 {
		t.Fatalf("%d read, %d declined: the cases do not exercise both ways", read, declined)
	}
}
