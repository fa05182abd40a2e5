package graph

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// DOT renders the graph in Graphviz's DOT language. Nodes are identified by
// their names; label gives each node's text and extra attributes (a "label"
// attribute is ignored: the text is the label). A nil label uses the names.
// Edges point from a dependency to its dependent, the way data flows, and the
// graph is laid out left to right. Nodes come in name order, edges in order
// of (dependency, dependent) names, and attributes in key order, so the text
// is the same for the same graph.
func (g *Graph) DOT(label func(v int) (text string, attrs map[string]string)) string {
	var b strings.Builder
	b.WriteString("digraph kiln {\n\trankdir=LR;\n")
	byName := g.byName()
	for _, v := range byName {
		text, attrs := g.names[v], map[string]string(nil)
		if label != nil {
			text, attrs = label(v)
		}
		fmt.Fprintf(&b, "\t%s [label=%s", dotQuote(g.names[v]), dotQuote(text))
		for _, k := range slices.Sorted(maps.Keys(attrs)) {
			if k == "label" {
				continue
			}
			fmt.Fprintf(&b, ", %s=%s", dotQuote(k), dotQuote(attrs[k]))
		}
		b.WriteString("];\n")
	}
	dependents := g.sortedAdjacency(g.dependents)
	for _, v := range byName {
		for _, d := range dependents[v] {
			fmt.Fprintf(&b, "\t%s -> %s;\n", dotQuote(g.names[v]), dotQuote(g.names[d]))
		}
	}
	b.WriteString("}\n")
	return b.String()
}

// dotQuote writes s as a DOT double-quoted string.
func dotQuote(s string) string {
	return `"` + dotEscaper.Replace(s) + `"`
}

var (
	dotEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", "")
	// mermaidEscaper writes as Mermaid's entity codes (#NAME; or #NUMBER;,
	// which it turns into HTML entities) every character of a label that
	// could end the quoted string (") or be read as markup: HTML (< > &),
	// a Markdown string (`), an entity code of the label's own (#), a
	// directive (%%{...}%%). A line break is the one markup it writes.
	mermaidEscaper = strings.NewReplacer(`"`, "#quot;", "<", "#lt;", ">", "#gt;", "&", "#amp;", "#", "#35;", "`", "#96;", "%", "#37;",
		"\n", "<br>", "\r", "")
)

// Mermaid renders the graph as a Mermaid "flowchart LR". Vertex v is node
// nV; label gives its text and an optional class (empty for none; a class
// that is not letters, digits, '-' or '_' is dropped). Edges point from a
// dependency to its dependent. After the nodes and edges comes one classDef
// line per class used, in name order, with the style style gives it
// (engine/render/palette.Class paints kiln's actions and outcomes). A nil
// label uses the names and no classes.
func (g *Graph) Mermaid(label func(v int) (text string, class string), style func(class string) string) string {
	var b strings.Builder
	b.WriteString("flowchart LR\n")
	byName := g.byName()
	used := map[string]bool{}
	for _, v := range byName {
		text, class := g.names[v], ""
		if label != nil {
			text, class = label(v)
		}
		fmt.Fprintf(&b, "  n%d[\"%s\"]", v, mermaidEscape(text))
		if validClass(class) {
			fmt.Fprintf(&b, ":::%s", class)
			used[class] = true
		}
		b.WriteString("\n")
	}
	dependents := g.sortedAdjacency(g.dependents)
	for _, v := range byName {
		for _, d := range dependents[v] {
			fmt.Fprintf(&b, "  n%d --> n%d\n", v, d)
		}
	}
	for _, class := range slices.Sorted(maps.Keys(used)) {
		fmt.Fprintf(&b, "  classDef %s %s\n", class, style(class))
	}
	return b.String()
}

// mermaidEscape makes s safe inside a quoted Mermaid label: GitHub and
// GitLab render it as the text s, whatever a node's name or for_each key
// holds.
func mermaidEscape(s string) string {
	return mermaidEscaper.Replace(s)
}

func validClass(class string) bool {
	if class == "" {
		return false
	}
	for _, r := range class {
		ok := r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !ok {
			return false
		}
	}
	return true
}

// byName returns every vertex, sorted by name.
func (g *Graph) byName() []int {
	out := make([]int, g.Len())
	for v, r := range g.rank {
		out[r] = v
	}
	return out
}
