package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/kilnbuild/kiln/engine"
	"github.com/kilnbuild/kiln/engine/human"
	"github.com/kilnbuild/kiln/engine/render"
)

func init() {
	flagSets["fmt"] = func() *flag.FlagSet { fs, _ := fmtFlags(); return fs }
	register(&command{name: "fmt", summary: "rewrite pipeline files in canonical form", usage: "kiln fmt [-check] [PATH...]", run: runFmt})
}

func fmtFlags() (*flag.FlagSet, *bool) {
	fs := flag.NewFlagSet("fmt", flag.ContinueOnError)
	check := fs.Bool("check", false, "change nothing; list files that are not formatted and exit 3 if any")
	return fs, check
}

func runFmt(c *cli, args []string) int {
	fs, check := fmtFlags()
	pos, err := parse(fs, args)
	if err != nil {
		fmt.Fprintln(c.stderr, "kiln fmt:", err)
		return 1
	}
	if len(pos) == 0 {
		pos = []string{"."}
	}
	var files []string
	for _, p := range pos {
		fi, err := os.Stat(p)
		if err != nil {
			c.fail(err)
			return 1
		}
		if !fi.IsDir() {
			files = append(files, p)
			continue
		}
		m, _ := filepath.Glob(filepath.Join(p, "*.hcl"))
		files = append(files, m...)
	}
	sort.Strings(files)
	unformatted := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			c.fail(err)
			return 1
		}
		// Refuse to rewrite a file that does not parse: the diagnostics say where.
		diags := engine.CheckNesting(src, f)
		if !diags.HasErrors() {
			_, diags = hclsyntax.ParseConfig(src, f, hcl.InitialPos)
		}
		if diags.HasErrors() {
			render.Diagnostics(c.stderr, nil, diags, 100, false)
			return 1
		}
		out := hclwrite.Format(src)
		if bytes.Equal(src, out) {
			continue
		}
		unformatted++
		fmt.Fprintln(c.stdout, f)
		if !*check {
			fi, _ := os.Stat(f)
			if err := engine.WriteFileAtomic(f, out, fi.Mode().Perm()); err != nil {
				c.fail(err)
				return 1
			}
		}
	}
	if *check && unformatted > 0 {
		fmt.Fprintf(c.stderr, "kiln fmt: %s not formatted; run kiln fmt to rewrite them\n", human.Count(unformatted, "file"))
		return 3
	}
	return 0
}
