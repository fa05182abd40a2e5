package plan

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReasonKindsDocumented checks that docs/plan-json.md lists exactly the
// reason kinds the package declares: a kind added without its row, or a row
// left behind by a kind removed, fails here.
func TestReasonKindsDocumented(t *testing.T) {
	declared := declaredReasonKinds(t)
	b, err := os.ReadFile("../../docs/plan-json.md")
	if err != nil {
		t.Fatal(err)
	}
	documented := documentedReasonKinds(t, string(b))
	if diff := cmp.Diff(declared, documented); diff != "" {
		t.Errorf("reason kinds in docs/plan-json.md differ from the ReasonKind constants (-declared +documented):\n%s", diff)
	}
}

// declaredReasonKinds reads the values of the package's ReasonKind
// constants from its source, sorted.
func declaredReasonKinds(t *testing.T) []string {
	t.Helper()
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "ReasonKind" {
					continue
				}
				for _, v := range vs.Values {
					lit, ok := v.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						t.Fatalf("%s: a ReasonKind constant is not a string literal", fset.Position(v.Pos()))
					}
					k, _ := strconv.Unquote(lit.Value)
					kinds = append(kinds, k)
				}
			}
		}
	}
	if len(kinds) == 0 {
		t.Fatal("no ReasonKind constants found")
	}
	sort.Strings(kinds)
	return kinds
}

// documentedReasonKinds reads the first column of the table under the
// "## Reason kinds" heading, sorted.
func documentedReasonKinds(t *testing.T, doc string) []string {
	t.Helper()
	_, section, ok := strings.Cut(doc, "\n## Reason kinds\n")
	if !ok {
		t.Fatal(`docs/plan-json.md has no "## Reason kinds" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var kinds []string
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 3 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		kinds = append(kinds, strings.Trim(strings.TrimSpace(cells[1]), "`"))
	}
	sort.Strings(kinds)
	return kinds
}

// TestReasonKindSentences checks that every kind has a sentence of its own
// rather than the fallback that names the kind.
func TestReasonKindSentences(t *testing.T) {
	for _, k := range declaredReasonKinds(t) {
		r := Reason{Kind: ReasonKind(k), Subject: "S"}
		if got := r.String(); got == k+" S" {
			t.Errorf("reason kind %s has no sentence in Reason.String: %q", k, got)
		}
	}
}
