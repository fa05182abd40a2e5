package graph

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// smallPipeline is exec.train -> exec.prep -> git_repo.verl, with
// exec.train also on fetch.model, numbered out of name order.
func smallPipeline(t *testing.T) *Graph {
	return build(t,
		[]string{"exec.train", "git_repo.verl", "exec.prep", "fetch.model"},
		[][2]string{{"exec.train", "exec.prep"}, {"exec.prep", "git_repo.verl"}, {"exec.train", "fetch.model"}})
}

func TestDOTGolden(t *testing.T) {
	g := smallPipeline(t)
	got := g.DOT(func(v int) (string, map[string]string) {
		switch g.Name(v) {
		case "exec.train":
			return "~ exec.train", map[string]string{"style": "filled", "fillcolor": "yellow", "label": "ignored"}
		case "fetch.model":
			return `fetch "model"`, nil
		}
		return g.Name(v), nil
	})
	want := `digraph kiln {
	rankdir=LR;
	"exec.prep" [label="exec.prep"];
	"exec.train" [label="~ exec.train", "fillcolor"="yellow", "style"="filled"];
	"fetch.model" [label="fetch \"model\""];
	"git_repo.verl" [label="git_repo.verl"];
	"exec.prep" -> "exec.train";
	"fetch.model" -> "exec.train";
	"git_repo.verl" -> "exec.prep";
}
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DOT (-want +got):\n%s", diff)
	}
	if plain := g.DOT(nil); plain != g.DOT(nil) || plain == "" {
		t.Errorf("DOT(nil) is empty or not deterministic")
	}
}
