// Command generate writes docs/language.md from its template and the
// schemas the loader decodes with, so the language reference cannot drift
// from what kiln accepts. Run it with go generate ./docs/generate; a test
// fails when the committed file differs from what it writes.
package main

//go:generate go run . -o ../language.md

import (
	"bytes"
	_ "embed"
	"flag"
	"fmt"
	"io"
	"os"
	"text/template"

	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/render"
	"github.com/kilnbuild/kiln/engine/schema"
	"github.com/kilnbuild/kiln/providers"
)

//go:embed language.md.tmpl
var languageTemplate string

func main() {
	out := flag.String("o", "", "write here instead of standard output")
	flag.Parse()
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		fmt.Fprintln(os.Stderr, "generate:", err)
		os.Exit(1)
	}
	if *out == "" {
		_, _ = os.Stdout.Write(buf.Bytes())
		return
	}
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "generate:", err)
		os.Exit(1)
	}
}

// write renders docs/language.md.
func write(w io.Writer) error {
	ref := config.Reference(providers.All())
	str := func(f func(io.Writer)) string {
		var b bytes.Buffer
		f(&b)
		return b.String()
	}
	funcs := template.FuncMap{
		"block_md":     func(b *schema.Block) string { return str(func(w io.Writer) { render.BlockMarkdown(w, ref, b, 3) }) },
		"meta_md":      func() string { return str(func(w io.Writer) { render.MetaMarkdown(w, ref) }) },
		"kinds_table":  func() string { return str(func(w io.Writer) { render.KindsTable(w, ref) }) },
		"functions_md": func() string { return str(func(w io.Writer) { render.FunctionsMarkdown(w, ref.Functions) }) },
	}
	t, err := template.New("language.md").Funcs(funcs).Parse(languageTemplate)
	if err != nil {
		return err
	}
	return t.Execute(w, ref)
}
