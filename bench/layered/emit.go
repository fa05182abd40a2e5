package layered

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// The folders Write creates under its root, one per tool.
const (
	KilnDir      = "kiln"
	MakeDir      = "make"
	NinjaDir     = "ninja"
	SnakemakeDir = "snakemake"
)

// SourcePath is the source file node (0, index) reads, relative to a tool's folder.
func SourcePath(index int) string { return fmt.Sprintf("src/%s.txt", Name(0, index)) }

// BuildPath is where make and ninja write the node at (layer, index),
// relative to their folder.
func BuildPath(layer, index int) string { return fmt.Sprintf("build/%s.txt", Name(layer, index)) }

// KilnOutPath is where kiln's node at (layer, index) leaves its file,
// relative to the pipeline's folder.
func KilnOutPath(layer, index int) string {
	return fmt.Sprintf(".kiln/out/exec.%s/out.txt", Name(layer, index))
}

// Command is the shell text that builds n: in reads the file of an upstream
// node (or the source file) and out names the node's own file.
func Command(n Node, in func(layer, index int) string, out string) string {
	if n.Layer == 0 {
		return fmt.Sprintf("cksum < %s > %s", SourcePath(n.Index), out)
	}
	files := make([]string, len(n.Deps))
	for i, k := range n.Deps {
		files[i] = in(n.Layer-1, k)
	}
	return fmt.Sprintf("cat %s | cksum > %s", strings.Join(files, " "), out)
}

// Write creates root/kiln, root/make, root/ninja and root/snakemake, each
// with the DAG's source files and its build description.
func Write(root string, d *DAG) error {
	for _, t := range []struct {
		dir, file string
		emit      func(io.Writer, *DAG) error
	}{
		{KilnDir, "pipeline.hcl", WriteHCL},
		{MakeDir, "Makefile", WriteMakefile},
		{NinjaDir, "build.ninja", WriteNinja},
		{SnakemakeDir, "Snakefile", WriteSnakefile},
	} {
		dir := filepath.Join(root, t.dir)
		if err := writeSources(dir, d); err != nil {
			return err
		}
		if err := writeFile(filepath.Join(dir, t.file), d, t.emit); err != nil {
			return err
		}
	}
	return nil
}

func writeSources(dir string, d *DAG) error {
	if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
		return fmt.Errorf("create the source folder: %w", err)
	}
	for k := range d.Layers[0] {
		text := fmt.Sprintf("source %s of the layered benchmark, seed %d\n", Name(0, k), d.Params.Seed)
		if err := os.WriteFile(filepath.Join(dir, SourcePath(k)), []byte(text), 0o644); err != nil {
			return fmt.Errorf("write a source file: %w", err)
		}
	}
	return nil
}

func writeFile(path string, d *DAG, emit func(io.Writer, *DAG) error) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	bw := bufio.NewWriter(f)
	err = emit(bw, d)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// WriteHCL writes the kiln pipeline: one exec block per node.
func WriteHCL(w io.Writer, d *DAG) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# Layered benchmark DAG: %d nodes in %d layers, %d edges, seed %d.\n", d.Len(), len(d.Layers), d.Edges(), d.Params.Seed)
	in := func(l, k int) string { return fmt.Sprintf("${exec.%s.out}/out.txt", Name(l, k)) }
	for _, layer := range d.Layers {
		for _, n := range layer {
			fmt.Fprintf(bw, "\nexec %q {\n", n.Name())
			if n.Layer == 0 {
				fmt.Fprintf(bw, "  inputs  = [%q]\n", SourcePath(n.Index))
			}
			fmt.Fprintf(bw, "  command = %q\n}\n", Command(n, in, "$KILN_OUT/out.txt"))
		}
	}
	return bw.Flush()
}

// WriteMakefile writes a Makefile whose default goal builds every node.
func WriteMakefile(w io.Writer, d *DAG) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# Layered benchmark DAG: %d nodes in %d layers, %d edges, seed %d.\n", d.Len(), len(d.Layers), d.Edges(), d.Params.Seed)
	fmt.Fprint(bw, "$(shell mkdir -p build)\n\n.PHONY: all\nall:")
	for _, layer := range d.Layers {
		for _, n := range layer {
			fmt.Fprintf(bw, " \\\n  %s", BuildPath(n.Layer, n.Index))
		}
	}
	fmt.Fprintln(bw)
	for _, layer := range d.Layers {
		for _, n := range layer {
			out := BuildPath(n.Layer, n.Index)
			fmt.Fprintf(bw, "\n%s: %s\n\t%s\n", out, strings.Join(prereqs(n), " "), Command(n, BuildPath, out))
		}
	}
	return bw.Flush()
}

// WriteNinja writes a build.ninja whose default targets build every node.
func WriteNinja(w io.Writer, d *DAG) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# Layered benchmark DAG: %d nodes in %d layers, %d edges, seed %d.\n", d.Len(), len(d.Layers), d.Edges(), d.Params.Seed)
	fmt.Fprint(bw, "ninja_required_version = 1.3\n\nrule sh\n  command = $cmd\n  description = $out\n")
	for _, layer := range d.Layers {
		for _, n := range layer {
			out := BuildPath(n.Layer, n.Index)
			fmt.Fprintf(bw, "\nbuild %s: sh %s\n  cmd = %s\n", out, strings.Join(prereqs(n), " "), Command(n, BuildPath, out))
		}
	}
	return bw.Flush()
}

// prereqs are the files make and ninja see n read.
func prereqs(n Node) []string {
	if n.Layer == 0 {
		return []string{SourcePath(n.Index)}
	}
	out := make([]string, len(n.Deps))
	for i, k := range n.Deps {
		out[i] = BuildPath(n.Layer-1, k)
	}
	return out
}

// WriteSnakefile writes a Snakefile as a Snakemake user would write a DAG
// this size: two rules with wildcards (a source node, a node reading its
// upstream files, found by an input function from a table) rather than one
// rule per node, producing the same files as make and ninja with the same
// shell text.
func WriteSnakefile(w io.Writer, d *DAG) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# Layered benchmark DAG: %d nodes in %d layers, %d edges, seed %d.\n", d.Len(), len(d.Layers), d.Edges(), d.Params.Seed)
	fmt.Fprint(bw, "NODES = [")
	for _, layer := range d.Layers {
		for _, n := range layer {
			fmt.Fprintf(bw, "\n    %q,", n.Name())
		}
	}
	fmt.Fprint(bw, "\n]\n\nDEPS = {")
	for _, layer := range d.Layers[1:] {
		for _, n := range layer {
			deps := make([]string, len(n.Deps))
			for i, k := range n.Deps {
				deps[i] = fmt.Sprintf("%q", Name(n.Layer-1, k))
			}
			fmt.Fprintf(bw, "\n    %q: [%s],", n.Name(), strings.Join(deps, ", "))
		}
	}
	io.WriteString(bw, `
}

rule all:
    input: expand("build/{n}.txt", n=NODES)

rule source:
    input: "src/{n}.txt"
    output: "build/{n}.txt"
    wildcard_constraints: n="n_0_[0-9]+"
    shell: "cksum < {input} > {output}"

rule node:
    input: lambda wc: ["build/%s.txt" % u for u in DEPS[wc.n]]
    output: "build/{n}.txt"
    wildcard_constraints: n="n_[1-9][0-9]*_[0-9]+"
    shell: "cat {input} | cksum > {output}"
`)
	return bw.Flush()
}
