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
	dotEscaper     = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", "")
	mermaidEscaper = strings.NewReplacer(`"`, "#quot;", "\n", "<br>", "\r", "")
)

// mermaidStyles holds the style of each class kiln's views use in Mermaid
// output: the plan actions and the outcomes of an apply. Any other class gets
// defaultMermaidStyle.
var mermaidStyles = map[string]string{
	"create":   "fill:#d4f7d4,stroke:#2e7d32",
	"rebuild":  "fill:#fff3c4,stroke:#b28704",
	"maybe":    "fill:#fffbe6,stroke:#b28704,stroke-dasharray:4 2",
	"restore":  "fill:#dbeafe,stroke:#1d4ed8",
	"repair":   "fill:#fde2e2,stroke:#b91c1c",
	"start":    "fill:#ede9fe,stroke:#6d28d9",
	"forget":   "fill:#eeeeee,stroke:#757575,stroke-dasharray:4 2",
	"noop":     "fill:#ffffff,stroke:#9e9e9e",
	"failed":   "fill:#fca5a5,stroke:#7f1d1d",
	"skipped":  "fill:#f5f5f5,stroke:#9e9e9e,stroke-dasharray:2 2",
	"blocked":  "fill:#fde68a,stroke:#92400e",
	"running":  "fill:#bfdbfe,stroke:#1e3a8a",
	"finished": "fill:#bbf7d0,stroke:#14532d",
}

const defaultMermaidStyle = "fill:#f0f0f0,stroke:#616161"

// ClassStyle is the style of a class of kiln's views ("create", "failed",
// ...), as Mermaid output writes it: "fill:#d4f7d4,stroke:#2e7d32". Other
// views (the HTML report) take their colours from here, so every picture
// of a pipeline paints an action the same way.
func ClassStyle(class string) string {
	if s, ok := mermaidStyles[class]; ok {
		return s
	}
	return defaultMermaidStyle
}

// Mermaid renders the graph as a Mermaid "flowchart LR". Vertex v is node
// nV; label gives its text and an optional class (empty for none; a class
// that is not letters, digits, '-' or '_' is dropped). Edges point from a
// dependency to its dependent. After the nodes and edges comes one classDef
// line per class used, in name order: kiln's plan actions (create, rebuild,
// maybe, restore, repair, start, forget, noop) and apply outcomes (failed,
// skipped, blocked, running, finished) have their own colours, any other
// class a neutral grey. A nil label uses the names and no classes.
func (g *Graph) Mermaid(label func(v int) (text string, class string)) string {
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
		style, ok := mermaidStyles[class]
		if !ok {
			style = defaultMermaidStyle
		}
		fmt.Fprintf(&b, "  classDef %s %s\n", class, style)
	}
	return b.String()
}

// mermaidEscape makes s safe inside a quoted Mermaid label.
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
