package graph_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/graph"
	"github.com/kilnbuild/kiln/engine/render/palette"
)

func TestMermaidGolden(t *testing.T) {
	// smallPipeline, built through the public API: the classes' colours
	// come from engine/render/palette, which this package cannot import.
	g := graph.New([]string{"exec.train", "git_repo.verl", "exec.prep", "fetch.model"})
	g.AddEdge(0, 2) // exec.train -> exec.prep
	g.AddEdge(2, 1) // exec.prep -> git_repo.verl
	g.AddEdge(0, 3) // exec.train -> fetch.model
	classes := map[string]string{"exec.train": "rebuild", "exec.prep": "maybe", "fetch.model": "custom_class", "git_repo.verl": "not a class"}
	got := g.Mermaid(func(v int) (string, string) {
		text := g.Name(v)
		if text == "exec.train" {
			text = `train "sft"`
		}
		return text, classes[g.Name(v)]
	}, palette.Class)
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
	if diff := cmp.Diff(wantPlain, g.Mermaid(nil, nil)); diff != "" {
		t.Errorf("Mermaid(nil) (-want +got):\n%s", diff)
	}
}

// TestMermaidEscapesHostileNames: whatever a node's name or for_each key
// holds, its label stays one quoted string that Mermaid (as GitHub and
// GitLab render it) shows as the text: no HTML, no Markdown string, no
// directive, no entity code of its own.
func TestMermaidEscapesHostileNames(t *testing.T) {
	tests := []struct{ name, label string }{
		{`exec.t["<script>alert(1)</script>"]`, `exec.t[#quot;#lt;script#gt;alert(1)#lt;/script#gt;#quot;]`},
		{`exec.t["<img src=x onerror=alert(1)>"]`, `exec.t[#quot;#lt;img src=x onerror=alert(1)#gt;#quot;]`},
		{"exec.t[\"`**md**`\"]", `exec.t[#quot;#96;**md**#96;#quot;]`},
		{`exec.t["%%{init: {'securityLevel': 'loose'}}%%"]`, `exec.t[#quot;#37;#37;{init: {'securityLevel': 'loose'}}#37;#37;#quot;]`},
		{`exec.t["#quot; &amp; #35;"]`, `exec.t[#quot;#35;quot; #amp;amp; #35;35;#quot;]`},
		{"exec.t[\"two\nlines\"]", `exec.t[#quot;two<br>lines#quot;]`},
	}
	for _, tt := range tests {
		g := graph.New([]string{tt.name})
		want := "flowchart LR\n  n0[\"" + tt.label + "\"]\n"
		if diff := cmp.Diff(want, g.Mermaid(nil, nil)); diff != "" {
			t.Errorf("Mermaid of %q (-want +got):\n%s", tt.name, diff)
		}
	}
}
