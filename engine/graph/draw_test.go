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

func TestMermaidGolden(t *testing.T) {
	g := smallPipeline(t)
	classes := map[string]string{"exec.train": "rebuild", "exec.prep": "maybe", "fetch.model": "custom_class", "git_repo.verl": "not a class"}
	got := g.Mermaid(func(v int) (string, string) {
		text := g.Name(v)
		if text == "exec.train" {
			text = `train "sft"`
		}
		return text, classes[g.Name(v)]
	})
	want := `flowchart LR
  n2["exec.prep"]:::maybe
  n0["train #quot;sft#quot;"]:::rebuild
  n3["fetch.model"]:::custom_class
  n1["git_repo.verl"]
  n2 --> n0
  n3 --> n0
  n1 --> n2
  classDef custom_class fill:#f0f0f0,stroke:#616161
  classDef maybe fill:#fffbe6,stroke:#b28704,stroke-dasharray:4 2
  classDef rebuild fill:#fff3c4,stroke:#b28704
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Mermaid (-want +got):\n%s", diff)
	}
	wantPlain := `flowchart LR
  n2["exec.prep"]
  n0["exec.train"]
  n3["fetch.model"]
  n1["git_repo.verl"]
  n2 --> n0
  n3 --> n0
  n1 --> n2
`
	if diff := cmp.Diff(wantPlain, g.Mermaid(nil)); diff != "" {
		t.Errorf("Mermaid(nil) (-want +got):\n%s", diff)
	}
}
