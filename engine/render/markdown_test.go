package render

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/graph"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/review"
	"github.com/kilnbuild/kiln/providers/exec"
)

// hostile are names a pipeline may give a for_each key or a metric, and
// that a pull-request comment must show as text.
var hostile = []string{
	`<script>alert(1)</script>`,
	`<img src=x onerror=alert(1)>`,
	`[click](javascript:alert(1))`,
	`![pixel](https://example.com/p.png)`,
	"``<img src=x onerror=alert(2)>``",
	`**bold** _it_ ~~gone~~ $x^2$ &lt; a|b \`,
}

// markup returns what a CommonMark renderer would read as markup in md:
// outside code spans and fenced blocks, an unescaped character that starts
// HTML, an entity, a link or image, or math. The views' own markup (<br>,
// <details>, <summary>) is allowed.
func markup(md string) []string {
	md = regexp.MustCompile("(?s)\n```mermaid\n.*?```\n").ReplaceAllString(md, "\n")
	md = regexp.MustCompile(`</?(br|details|summary)>`).ReplaceAllString(md, "")
	var found []string
	for i := 0; i < len(md); i++ {
		switch c := md[i]; c {
		case '\\':
			i++
		case '`':
			n := 1
			for i+n < len(md) && md[i+n] == '`' {
				n++
			}
			fence := strings.Repeat("`", n)
			end := -1
			for j := i + n; j < len(md); {
				k := strings.Index(md[j:], fence)
				if k < 0 {
					break
				}
				k += j
				if (k+n == len(md) || md[k+n] != '`') && md[k-1] != '`' {
					end = k
					break
				}
				j = k + 1
			}
			if end < 0 {
				i += n - 1 // literal backticks
				continue
			}
			i = end + n - 1
		case '<', '&', '[', '$':
			found = append(found, string(c)+md[i+1:min(len(md), i+12)])
		}
	}
	return found
}

func TestMarkdownText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text, 2.5s: a - b + c", "plain text, 2.5s: a - b + c"},
		{`<script>alert(1)</script>`, `\<script\>alert(1)\</script\>`},
		{`<img src=x onerror=alert(1)>`, `\<img src=x onerror=alert(1)\>`},
		{`[click](javascript:alert(1))`, `\[click\](javascript:alert(1))`},
		{`&lt;`, `\&lt;`},
		{`$x^2$`, `\$x^2\$`},
		{"a|b\nc", `a\|b c`},
		{`\`, `\\`},
		{"`code`", "\\`code\\`"},
		{`**bold** a*b`, `\*\*bold\*\* a\*b`},
		{`~ rebuild, a * b`, `~ rebuild, a * b`},
		{`~~gone~~`, `\~\~gone\~\~`},
		{`git_repo.verl _it_ a_`, `git_repo.verl \_it\_ a\_`},
	}
	for _, tt := range tests {
		if got := MarkdownText(tt.in); got != tt.want {
			t.Errorf("MarkdownText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	for _, s := range hostile {
		if m := markup("| " + MarkdownText(s) + " |"); len(m) > 0 {
			t.Errorf("MarkdownText(%q) leaves markup: %q", s, m)
		}
	}
}

func TestMarkdownCode(t *testing.T) {
	tests := []struct{ in, want string }{
		{"exec.a", "`exec.a`"},
		{`exec.x["<b>bold</b>"]`, "`exec.x[\"<b>bold</b>\"]`"},
		{"a`b", "``a`b``"},
		{"`a", "`` `a ``"},
		{"``<img src=x onerror=alert(2)>``", "``` ``<img src=x onerror=alert(2)>`` ```"},
		{"a|b\nc", "`a\\|b c`"},
	}
	for _, tt := range tests {
		if got := MarkdownCode(tt.in); got != tt.want {
			t.Errorf("MarkdownCode(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	for _, s := range hostile {
		if m := markup("| " + MarkdownCode(s) + " |"); len(m) > 0 {
			t.Errorf("MarkdownCode(%q) leaves markup: %q", s, m)
		}
	}
}

func hostileNode(key string, deps ...addr.Node) *config.Node {
	return &config.Node{Addr: addr.Node{Kind: "exec", Name: "t", Key: addr.StringKey(key)}, CountIdx: -1, Deps: deps}
}

// TestPlanMarkdownHostileNames: addresses, reasons naming other nodes, a
// blocked reason and forgotten nodes all show as text.
func TestPlanMarkdownHostileNames(t *testing.T) {
	k := exec.New()
	pl := &plan.Plan{}
	for _, s := range hostile {
		up := hostileNode(s + " up")
		pl.Changes = append(pl.Changes, &plan.Decision{Node: hostileNode(s, up.Addr), Kind: k, Action: plan.Maybe,
			Reasons: []plan.Reason{{Kind: "upstream_runs", Subject: up.Addr.String()}}, Blocked: s + " is unavailable"})
		pl.Forget = append(pl.Forget, `exec.gone["`+s+`"]`)
	}
	var b bytes.Buffer
	PlanMarkdown(&b, ModelPlan(pl, "pipeline.hcl", StateJSON{}, "0.1.0"))
	if m := markup(b.String()); len(m) > 0 {
		t.Errorf("the plan's Markdown leaves markup %q:\n%s", m, b.String())
	}
	want := "| `?` | `exec.t[\"<script>alert(1)</script>\"]` | maybe | upstream exec.t\\[\"\\<script\\>alert(1)\\</script\\> up\"\\] will run; decided once its digest is known<br>**cannot run here:** \\<script\\>alert(1)\\</script\\> is unavailable |"
	if !strings.Contains(b.String(), want+"\n") {
		t.Errorf("the plan's Markdown lacks the line\n%s\nin\n%s", want, b.String())
	}
}

// TestReviewMarkdownHostileNames: kiln diff's Markdown, the Mermaid graph
// in it included, shows every name as text.
func TestReviewMarkdownHostileNames(t *testing.T) {
	r := &review.Report{Files: []string{"<b>pipeline</b>.hcl"}, Old: review.Revision{Name: "<i>main</i>", Commit: "0123456789abcdef"}, New: review.Revision{WorkingTree: true}}
	var names []string
	for _, s := range hostile {
		a := `exec.t["` + s + `"]`
		names = append(names, a)
		r.Changed = append(r.Changed, review.Changed{Node: review.Node{Address: a}, Changes: []plan.ReasonJSON{
			{Reason: plan.Reason{Kind: plan.ReasonAttribute, Subject: s, Old: s, New: s + "2"}},
			{Reason: plan.Reason{Kind: "drift"}, Message: s + " changed"},
		}})
		r.Added = append(r.Added, review.Node{Address: a + "+"})
		r.Invalidated = append(r.Invalidated, review.Invalidated{Node: review.Node{Address: a + "?"}, Because: []string{a}})
		r.Unresolved = append(r.Unresolved, review.Unresolved{Node: review.Node{Address: a}, Revision: s, Error: s + " failed"})
		r.Variables = append(r.Variables, review.VariableChange{Name: s, Old: s, New: s})
	}
	r.Summary.Changed, r.Summary.Rerun = len(hostile), len(hostile)
	g := graph.New(names)
	r.Graph = GraphMermaid(g, func(int) plan.Action { return plan.Rebuild }, nil)
	var b bytes.Buffer
	ReviewMarkdown(&b, r)
	md := b.String()
	if m := markup(md); len(m) > 0 {
		t.Errorf("kiln diff's Markdown leaves markup %q:\n%s", m, md)
	}
	block := regexp.MustCompile("(?s)```mermaid\n(.*?)```").FindStringSubmatch(md)
	if block == nil {
		t.Fatalf("no Mermaid block in\n%s", md)
	}
	for _, line := range strings.Split(block[1], "\n") {
		label, ok := strings.CutPrefix(line, "  n")
		if !ok || !strings.Contains(label, "[\"") {
			continue
		}
		inner := label[strings.Index(label, `["`)+2 : strings.LastIndex(label, `"]`)]
		if strings.ContainsAny(inner, "<>&\"`%") {
			t.Errorf("Mermaid label %q holds markup", inner)
		}
	}
}

// TestGraphMermaidHostileNames: kiln graph -format mermaid writes each name
// as entity codes Mermaid shows as the text.
func TestGraphMermaidHostileNames(t *testing.T) {
	g := graph.New([]string{`exec.t["<script>alert(1)</script>"]`, "exec.u[\"``%%{init: {}}%%#quot;\"]"})
	got := GraphMermaid(g, func(int) plan.Action { return plan.Create }, nil)
	want := "flowchart LR\n" +
		"  n0[\"+ exec.t[#quot;#lt;script#gt;alert(1)#lt;/script#gt;#quot;]\"]:::create\n" +
		"  n1[\"+ exec.u[#quot;#96;#96;#37;#37;{init: {}}#37;#37;#35;quot;#quot;]\"]:::create\n"
	if diff := cmp.Diff(want, got[:len(want)]); diff != "" {
		t.Errorf("Mermaid (-want +got):\n%s", diff)
	}
}
