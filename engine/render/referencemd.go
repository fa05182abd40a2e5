package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/kilnbuild/kiln/engine/schema"
)

// BlockMarkdown writes one block of the language for docs/language.md: a
// heading, what it is, a table of its attributes (type, default, key,
// meaning and example), its nested blocks, its exports and an example.
func BlockMarkdown(w io.Writer, ref *schema.Reference, b *schema.Block, level int) {
	h := strings.Repeat("#", level)
	fmt.Fprintf(w, "%s `%s`\n\n", h, strings.TrimSuffix(header(b), " { ... }"))
	if b.Summary != "" {
		fmt.Fprintf(w, "%s.\n\n", upperFirst(b.Summary))
	}
	for _, p := range paragraphs(b.Doc) {
		fmt.Fprintf(w, "%s\n\n", p)
	}
	isNode := ref.IsKind(b) || b == ref.Meta
	attrsMarkdown(w, b.Sorted(), isNode)
	for _, nb := range b.Blocks {
		times := "at most once"
		if nb.Repeated {
			times = "any number of times"
		}
		fmt.Fprintf(w, "Block `%s { ... }` (%s): %s.\n\n", nb.Name, times, nb.Summary)
		attrsMarkdown(w, nb.Sorted(), isNode)
	}
	if ref.IsKind(b) {
		exports := []string{"`out` (the stable output path)", "`digest`"}
		for _, e := range b.Exports {
			exports = append(exports, fmt.Sprintf("`%s` (%s)", e.Name, e.Doc))
		}
		fmt.Fprintf(w, "Exports: %s.\n\n", strings.Join(exports, ", "))
	}
	if b.Example != "" {
		fmt.Fprintf(w, "```hcl\n%s\n```\n\n", b.Example)
	}
}

func attrsMarkdown(w io.Writer, attrs []schema.Attr, keyed bool) {
	if len(attrs) == 0 {
		return
	}
	if keyed {
		fmt.Fprintln(w, "| attribute | type | default | enters the key | meaning |")
		fmt.Fprintln(w, "|---|---|---|---|---|")
	} else {
		fmt.Fprintln(w, "| attribute | type | default | meaning |")
		fmt.Fprintln(w, "|---|---|---|---|")
	}
	for _, a := range attrs {
		def := a.DefaultText()
		switch {
		case a.Required:
			def = "required"
		case def == "":
			def = "—"
		default:
			def = MarkdownText(def)
		}
		meaning := MarkdownText(a.Doc)
		if a.Example != "" {
			meaning += fmt.Sprintf(" Example: `%s = %s`", a.Name, mdCode(a.Example))
		}
		if keyed {
			fmt.Fprintf(w, "| `%s` | %s | %s | %s | %s |\n", a.Name, MarkdownText(a.TypeName()), def, string(a.Key), meaning)
		} else {
			fmt.Fprintf(w, "| `%s` | %s | %s | %s |\n", a.Name, MarkdownText(a.TypeName()), def, meaning)
		}
	}
	fmt.Fprintln(w)
}

// FunctionsMarkdown writes the functions as a table with an example each.
func FunctionsMarkdown(w io.Writer, fs []schema.Function) {
	fmt.Fprintln(w, "| function | what it does | example |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, f := range fs {
		fmt.Fprintf(w, "| `%s` | %s | `%s` → `%s` |\n", f.Signature, MarkdownText(f.Doc), mdCode(f.Example), mdCode(f.Result))
	}
	fmt.Fprintln(w)
}

// KindsTable lists the node kinds with their one-line summaries.
func KindsTable(w io.Writer, ref *schema.Reference) {
	fmt.Fprintln(w, "| kind | what it makes |")
	fmt.Fprintln(w, "|---|---|")
	for _, k := range ref.Kinds {
		fmt.Fprintf(w, "| [`%s`](#%s-name) | %s |\n", k.Name, k.Name, MarkdownText(k.Summary))
	}
	fmt.Fprintln(w)
}

// mdCode escapes text for a table cell's code span.
func mdCode(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", `\n`)
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// MetaMarkdown writes the meta-arguments' table and the slurm block.
func MetaMarkdown(w io.Writer, ref *schema.Reference) {
	m := ref.Meta
	attrsMarkdown(w, m.Sorted(), true)
	for _, nb := range m.Blocks {
		fmt.Fprintf(w, "Block `%s { ... }` (at most once): %s.\n\n", nb.Name, nb.Summary)
		attrsMarkdown(w, nb.Sorted(), true)
	}
}
