package config

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// TestParsePiecesIsTheWholeParse is a property: a file parsed in pieces
// gives the syntax tree (every position included) and navigation that the
// parser gives for the whole file, or is parsed as a whole; random files
// hold what a cut must not fall into: heredocs and block comments with lines
// "}" in them, maps and nested blocks closed at the start of a line, top-level
// arguments, an argument set twice, syntax errors.
func TestParsePiecesIsTheWholeParse(t *testing.T) {
	items := []func(r *rand.Rand, i int) string{
		func(r *rand.Rand, i int) string {
			return fmt.Sprintf("exec \"n%d\" {\n  command = \"echo ${exec.n%d.out} > $KILN_OUT/o\"\n  inputs  = [\"src/%d.txt\"]\n}\n%s", i, r.IntN(i+1), i, strings.Repeat("\n", r.IntN(3)))
		},
		func(r *rand.Rand, i int) string {
			return fmt.Sprintf("exec \"h%d\" {\n  command = <<EOT\necho a\n}\nexec \"fake\" {\nEOT\n}\n", i)
		},
		func(r *rand.Rand, i int) string {
			return fmt.Sprintf("/* a comment\n}\nexec \"c%d\" {\n*/\nexec \"c%d\" {\n  command = \"true\"\n}\n", i, i)
		},
		func(r *rand.Rand, i int) string {
			return fmt.Sprintf("exec \"m%d\" {\n  env = {\n    A = \"1\"\n}\nx = 1\n  }\n  command = \"true\"\n}\n", i)
		},
		func(r *rand.Rand, i int) string {
			return fmt.Sprintf("locals {\n  l%d = {\n    a = [1, 2]\n}\n}\n", i)
		},
		func(r *rand.Rand, i int) string { return fmt.Sprintf("top%d = {\n}\n", r.IntN(12)) },
		func(r *rand.Rand, i int) string {
			return fmt.Sprintf("# }\n\nexec \"s%d\" { command = \"true\" }\n", i)
		},
		func(r *rand.Rand, i int) string { return "exec \"bad\" {\n  command = \n}\n" },
		func(r *rand.Rand, i int) string {
			return fmt.Sprintf("exec \"r%d\" {\r\n  command = \"true\"\r\n}\r\n", i)
		},
	}
	weights := []int{60, 1, 1, 1, 2, 2, 2, 0, 2}
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(1, 2))
	cutTried, inPieces := 0, 0
	for round := range 300 {
		var src strings.Builder
		weights[7] = 0 // a syntax error in one file of four
		if round%4 == 0 {
			weights[7] = 1
		}
		for i := range 5 + r.IntN(60) {
			k := r.IntN(sum(weights))
			for j, w := range weights {
				if k < w {
					src.WriteString(items[j](r, i))
					break
				}
				k -= w
			}
		}
		b := []byte(src.String())
		name := filepath.Join(dir, fmt.Sprintf("p%d.hcl", round))
		size := 16 + r.IntN(400)
		want, wantDiags := hclsyntax.ParseConfig(b, name, hcl.InitialPos)
		if len(cutPoints(b, size)) > 0 {
			cutTried++
		}
		if got, ok := parsePieces(b, name, size); ok {
			inPieces++
			if wantDiags.HasErrors() {
				t.Fatalf("round %d: the pieces parsed cleanly, the whole file has errors: %s\n%s", round, wantDiags.Error(), b)
			}
			if !reflect.DeepEqual(want, got) {
				t.Fatalf("round %d (pieces of %d bytes): the syntax tree differs from the whole file's\n%s", round, size, b)
			}
		}
		// Through the file, errors are the whole file's.
		if err := os.WriteFile(name, b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, diags := parseHCLFile(name)
		if diags.Error() != wantDiags.Error() {
			t.Fatalf("round %d: diagnostics %q, the whole file's %q", round, diags.Error(), wantDiags.Error())
		}
	}
	t.Logf("%d files had cuts, %d were parsed in pieces", cutTried, inPieces)
	if inPieces < 50 || inPieces == cutTried {
		t.Fatalf("%d of %d files with cuts were parsed in pieces: the cases do not exercise both ways", inPieces, cutTried)
	}
}

func sum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

// TestLoadInPiecesPointsAtTheBlock: an error in a file parsed in pieces
// names the file, the line and the block it is in.
func TestLoadInPiecesPointsAtTheBlock(t *testing.T) {
	var src strings.Builder
	for i := range 300 {
		fmt.Fprintf(&src, "exec \"n%d\" {\n  command = \"echo %d > $KILN_OUT/o\"\n}\n\n", i, i)
	}
	src.WriteString("exec \"last\" {\n  comand = \"true\"\n}\n")
	defer func(size int) { pieceSize = size }(pieceSize)
	pieceSize = 4 << 10
	if len(cutPoints([]byte(src.String()), pieceSize)) == 0 {
		t.Fatal("the test file is not cut: make it larger")
	}
	p, diags := load(t, src.String(), Options{})
	if !diags.HasErrors() {
		t.Fatal("no error for the misspelt argument")
	}
	d := diags[0]
	line := 300*4 + 2
	if d.Subject == nil || d.Subject.Start.Line != line || !strings.HasSuffix(d.Subject.Filename, "p.hcl") {
		t.Fatalf("the error is at %v, want p.hcl line %d: %s", d.Subject, line, diags.Error())
	}
	var text strings.Builder
	if err := hcl.NewDiagnosticTextWriter(&text, p.Files, 0, false).WriteDiagnostics(diags); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), `, in exec "last":`) || !strings.Contains(text.String(), `comand = "true"`) {
		t.Errorf("the error does not show its block and line:\n%s", text.String())
	}
}
