package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/kilnbuild/kiln/engine/schema"
)

// helpWidth is the width kiln help wraps its prose to.
const helpWidth = 80

// BlockHelp writes one block of the language for kiln help: what it is,
// each attribute with its type, whether it is required or its default, how
// it enters the key, what it means and an example, then its nested blocks,
// its exports and an example block.
func BlockHelp(w io.Writer, ref *schema.Reference, b *schema.Block) {
	fmt.Fprintln(w, header(b))
	if b.Summary != "" {
		wrap(w, "  ", b.Summary)
	}
	for _, para := range paragraphs(b.Doc) {
		fmt.Fprintln(w)
		wrap(w, "  ", para)
	}
	isKind := ref.IsKind(b)
	if len(b.Attrs) > 0 {
		fmt.Fprintln(w)
		if isKind || b == ref.Meta {
			fmt.Fprintln(w, "Attributes (key: how each enters the node's key):")
		} else {
			fmt.Fprintln(w, "Attributes:")
		}
		attrsHelp(w, "  ", b.Sorted())
	}
	for _, nb := range b.Blocks {
		fmt.Fprintln(w)
		times := "at most once"
		if nb.Repeated {
			times = "any number of times"
		}
		fmt.Fprintf(w, "Block %s { ... } (%s)\n", nb.Name, times)
		if nb.Summary != "" {
			wrap(w, "  ", nb.Summary)
		}
		attrsHelp(w, "  ", nb.Sorted())
	}
	if isKind {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "Exports: %s.NAME.out (the stable output path), %s.NAME.digest", b.Name, b.Name)
		for _, e := range b.Exports {
			fmt.Fprintf(w, ", %s.NAME.%s", b.Name, e.Name)
		}
		fmt.Fprintln(w)
		for _, e := range b.Exports {
			wrap(w, "  ", fmt.Sprintf("%s: %s", e.Name, e.Doc))
		}
		fmt.Fprintln(w, "\nEvery node block also takes the meta-arguments: kiln help meta-arguments.")
	}
	if b.Example != "" {
		fmt.Fprintln(w, "\nExample:")
		for _, l := range strings.Split(b.Example, "\n") {
			fmt.Fprintln(w, strings.TrimRight("  "+l, " "))
		}
	}
}

func header(b *schema.Block) string {
	labels := ""
	for _, l := range b.Labels {
		if b.Name == "executor" && l == "type" {
			labels += ` "slurm"`
			continue
		}
		labels += fmt.Sprintf(" %q", strings.ToUpper(l))
	}
	if b.Name == "meta-arguments" {
		return "Meta-arguments (in every node block)"
	}
	return b.Name + labels + " { ... }"
}

func attrsHelp(w io.Writer, indent string, attrs []schema.Attr) {
	for _, a := range attrs {
		var facts []string
		switch {
		case a.Required:
			facts = append(facts, "required")
		case a.DefaultText() != "":
			facts = append(facts, "default: "+a.DefaultText())
		default:
			facts = append(facts, "optional")
		}
		if a.Key != schema.KeyNone {
			facts = append(facts, "key: "+string(a.Key))
		}
		fmt.Fprintf(w, "%s%s = %s  (%s)\n", indent, a.Name, a.TypeName(), strings.Join(facts, "; "))
		if a.Doc != "" {
			wrap(w, indent+"    ", a.Doc)
		}
		if a.Example != "" {
			fmt.Fprintf(w, "%s    e.g. %s = %s\n", indent, a.Name, a.Example)
		}
	}
}

// FunctionHelp writes one function for kiln help.
func FunctionHelp(w io.Writer, f *schema.Function) {
	fmt.Fprintln(w, f.Signature)
	wrap(w, "  ", f.Doc)
	if f.Example != "" {
		fmt.Fprintf(w, "\n  %s\n  = %s\n", f.Example, f.Result)
	}
}

// LanguageHelp lists the kinds, blocks and functions, for kiln help
// language.
func LanguageHelp(w io.Writer, ref *schema.Reference) {
	fmt.Fprintln(w, "Node kinds (kiln help KIND):")
	for _, k := range ref.Kinds {
		fmt.Fprintf(w, "  %-12s %s\n", k.Name, k.Summary)
	}
	fmt.Fprintf(w, "  %-12s %s\n", "(every kind)", "meta-arguments: kiln help meta-arguments")
	fmt.Fprintln(w, "\nOther blocks (kiln help BLOCK):")
	for _, b := range ref.Blocks {
		fmt.Fprintf(w, "  %-12s %s\n", b.Name, b.Summary)
	}
	fmt.Fprintln(w, "\nFunctions (kiln help FUNCTION):")
	var names []string
	for _, f := range ref.Functions {
		names = append(names, f.Name)
	}
	wrap(w, "  ", strings.Join(names, " "))
}

func paragraphs(s string) []string {
	var out []string
	for _, p := range strings.Split(s, "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// wrap writes text as lines of at most helpWidth columns, each starting
// with indent. Words longer than a line stay whole.
func wrap(w io.Writer, indent, text string) {
	line := indent
	for _, word := range strings.Fields(text) {
		if len(line) > len(indent) && len(line)+1+len(word) > helpWidth {
			fmt.Fprintln(w, line)
			line = indent
		}
		if len(line) > len(indent) {
			line += " "
		}
		line += word
	}
	if len(line) > len(indent) {
		fmt.Fprintln(w, line)
	}
}
