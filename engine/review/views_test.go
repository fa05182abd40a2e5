package review_test

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/kilnbuild/kiln/engine/render"
	"github.com/kilnbuild/kiln/engine/review"
	"github.com/kilnbuild/kiln/providers"
)

// Reports Compare made, and their views (engine/render): what could not be
// compared is shown, a sensitive value never is.

// TestCompareReportsNodesItCannotEvaluate: an input file that git does not
// track exists only in the working tree, so the old revision cannot hash
// it; the node is listed as not compared instead of failing the report.
func TestCompareReportsNodesItCannotEvaluate(t *testing.T) {
	repo := review.NewGitRepo(t, t.TempDir())
	pipeline := `exec "a" {
  command = "true"
  inputs  = ["data.bin"]
}

exec "b" {
  command = "echo ${exec.a.out}"
}
`
	repo.Commit("base", map[string]string{"pipeline.hcl": pipeline, ".gitignore": "data.bin\n"})
	repo.Write(map[string]string{"data.bin": "big\n", "pipeline.hcl": strings.Replace(pipeline, "echo", "printf", 1)})
	r, err := review.Compare(context.Background(), review.Options{Path: repo.Dir(), Old: "HEAD", Kinds: providers.All()})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Unresolved) != 1 || r.Unresolved[0].Address != "exec.a" || r.Unresolved[0].Revision != "HEAD" {
		t.Fatalf("Unresolved = %+v, want exec.a at HEAD", r.Unresolved)
	}
	if !strings.Contains(r.Unresolved[0].Error, "data.bin") || strings.Contains(r.Unresolved[0].Error, os.TempDir()) {
		t.Errorf("error %q should name data.bin and no temporary folder", r.Unresolved[0].Error)
	}
	if len(r.Changed) != 1 || r.Changed[0].Address != "exec.b" {
		t.Errorf("Changed = %+v, want exec.b", r.Changed)
	}
	var text, md bytes.Buffer
	render.ReviewText(&text, r, render.Colors{})
	render.ReviewMarkdown(&md, r)
	for _, out := range []string{text.String(), md.String()} {
		if !strings.Contains(out, "exec.a") || !strings.Contains(out, "data.bin") || !strings.Contains(out, "not compared") {
			t.Errorf("the view does not show exec.a as not compared:\n%s", out)
		}
	}
}

func TestVariableChangesHideSensitiveValues(t *testing.T) {
	repo := review.NewGitRepo(t, t.TempDir())
	pipeline := func(token, size string) string {
		return `variable "token" {
  type      = string
  default   = "` + token + `"
  sensitive = true
}

variable "size" {
  type    = string
  default = "` + size + `"
}

exec "a" {
  command = "echo ${var.size}"
  env     = { TOKEN = var.token }
}
`
	}
	repo.Commit("base", map[string]string{"pipeline.hcl": pipeline("secret-one", "small")})
	repo.Write(map[string]string{"pipeline.hcl": pipeline("secret-two", "large") + `
variable "extra" {
  type    = number
  default = 2
}
`})
	r, err := review.Compare(context.Background(), review.Options{Path: repo.Dir(), Old: "HEAD", Kinds: providers.All()})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, v := range r.Variables {
		names = append(names, v.Name)
		if strings.Contains(v.Old+v.New, "secret") {
			t.Errorf("variable %s shows a sensitive value: %s → %s", v.Name, v.Old, v.New)
		}
	}
	if strings.Join(names, " ") != "extra size token" {
		t.Errorf("changed variables = %v, want extra size token", names)
	}
	if v := r.Variables[0]; v.Old != "(undeclared)" || v.New != "2" {
		t.Errorf("extra = %+v", v)
	}
	if v := r.Variables[1]; v.Old != `"small"` || v.New != `"large"` {
		t.Errorf("size = %+v", v)
	}
	if v := r.Variables[2]; !strings.HasPrefix(v.Old, "(sensitive ") || v.Old == v.New {
		t.Errorf("token = %+v, want two different hashes", v)
	}
	var text bytes.Buffer
	render.ReviewText(&text, r, render.Colors{})
	if strings.Contains(text.String(), "secret") {
		t.Errorf("the text shows a sensitive value:\n%s", text.String())
	}
}
