package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/providers/exec"
	"github.com/zclconf/go-cty/cty"
)

func tree(t *testing.T, files ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range files {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func call(t *testing.T, root, name string, args ...string) (cty.Value, error) {
	t.Helper()
	fs := fileFunctions(root, func(what, path, seen string) {})
	vals := make([]cty.Value, len(args))
	for i, a := range args {
		vals[i] = cty.StringVal(a)
	}
	return fs[name].Call(vals)
}

func strings_(v cty.Value) []string {
	var out []string
	for it := v.ElementIterator(); it.Next(); {
		k, e := it.Element()
		if v.Type().IsMapType() {
			out = append(out, k.AsString()+"="+e.AsString())
		} else {
			out = append(out, e.AsString())
		}
	}
	return out
}

// fileset follows Terraform: regular files only, paths relative to the
// folder, sorted, ** across folders, {a,b} alternatives; a missing folder
// matches nothing.
func TestFileset(t *testing.T) {
	root := tree(t, "data/a.fastq", "data/b.fastq", "data/c.txt", "data/deep/d.fastq", "data/deep/er/e.fastq",
		".kiln/out/x.fastq", "data/[x].fastq")
	if err := os.MkdirAll(filepath.Join(root, "data/dir.fastq"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path, pattern string
		want          []string
	}{
		{"data", "*.fastq", []string{"[x].fastq", "a.fastq", "b.fastq"}},
		{"data", "**/*.fastq", []string{"[x].fastq", "a.fastq", "b.fastq", "deep/d.fastq", "deep/er/e.fastq"}},
		{"data", "deep/**", []string{"deep/d.fastq", "deep/er/e.fastq"}},
		{"data", "{a,c}.*", []string{"a.fastq", "c.txt"}},
		{"data", "?.txt", []string{"c.txt"}},
		{"data", "[ab].fastq", []string{"a.fastq", "b.fastq"}},
		{".", "**/*.fastq", []string{"data/[x].fastq", "data/a.fastq", "data/b.fastq", "data/deep/d.fastq", "data/deep/er/e.fastq"}},
		{root + "/data/deep", "*", []string{"d.fastq"}},
		{"missing", "*", nil},
	}
	for _, tt := range tests {
		v, err := call(t, root, "fileset", tt.path, tt.pattern)
		if err != nil {
			t.Errorf("fileset(%q, %q): %v", tt.path, tt.pattern, err)
			continue
		}
		if diff := cmp.Diff(tt.want, strings_(v)); diff != "" {
			t.Errorf("fileset(%q, %q) (-want +got):\n%s", tt.path, tt.pattern, diff)
		}
	}
	if _, err := call(t, root, "fileset", "data", "[a"); err == nil || !strings.Contains(err.Error(), "invalid pattern") {
		t.Errorf("fileset with a bad pattern: %v", err)
	}
}

func TestGlobWildcards(t *testing.T) {
	root := tree(t, "data/a.fastq", "data/b-1.fastq", "data/c.txt", "data/sub/d.fastq",
		"lanes/x_L1.fq", "lanes/x_L2.fq", "lanes/y_L1.fq", "pair/p_p.txt", "pair/p_q.txt", "data/{odd}.fastq")
	tests := []struct {
		pattern string
		want    []string
	}{
		{"data/{sample}.fastq", []string{"a=data/a.fastq", "b-1=data/b-1.fastq", "{odd}=data/{odd}.fastq"}},
		{"data/{sample,[a-z]}.fastq", []string{"a=data/a.fastq"}},
		{"lanes/{sample}_{lane}.fq", []string{"x/L1=lanes/x_L1.fq", "x/L2=lanes/x_L2.fq", "y/L1=lanes/y_L1.fq"}},
		{"pair/{s}_{s}.txt", []string{"p=pair/p_p.txt"}},
		{root + "/data/{s}.txt", []string{"c=" + root + "/data/c.txt"}},
		{"nothing/{s}.txt", nil},
	}
	for _, tt := range tests {
		v, err := call(t, root, "glob_wildcards", tt.pattern)
		if err != nil {
			t.Errorf("glob_wildcards(%q): %v", tt.pattern, err)
			continue
		}
		if diff := cmp.Diff(tt.want, strings_(v)); diff != "" {
			t.Errorf("glob_wildcards(%q) (-want +got):\n%s", tt.pattern, diff)
		}
	}
	for _, bad := range []string{"data/a.fastq", "data/{sample.fastq", "data/{1x}.fastq", "data/{s,[}.fastq"} {
		if _, err := call(t, root, "glob_wildcards", bad); err == nil {
			t.Errorf("glob_wildcards(%q): no error", bad)
		}
	}
}

// A listing is recorded, and Relist notices a file that appeared.
func TestListingsRecorded(t *testing.T) {
	root := tree(t, "data/a.txt", "data/b.txt")
	write(t, root, "p.hcl", `
locals {
  samples = glob_wildcards("data/{s}.txt")
}
exec "map" {
  for_each = local.samples
  command  = "cat ${each.value}"
}
exec "all" {
  for_each = fileset(path.root, "data/*.txt")
  command  = "true"
}
`)
	p, diags := Load(root, Options{Kinds: []kind.Kind{exec.New()}, Env: []string{}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if len(p.Nodes) != 4 {
		t.Fatalf("%d nodes, want 4", len(p.Nodes))
	}
	reads, _ := p.FilesRead()
	var ls []FileRead
	for _, f := range reads {
		if f.What == ReadFileset || f.What == ReadWildcards {
			ls = append(ls, f)
		}
	}
	if len(ls) != 2 {
		t.Fatalf("listings = %v", ls)
	}
	for _, l := range ls {
		if !Relist(l) {
			t.Errorf("%s(%q) changed without a change", l.What, l.Pattern)
		}
	}
	if err := os.WriteFile(filepath.Join(p.Root, "data", "new.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, l := range ls {
		if Relist(l) {
			t.Errorf("%s(%q) did not notice a new file", l.What, l.Pattern)
		}
	}
}

// length counts the instances of a for_each block (an object) as well as
// lists, maps and strings, as in Terraform.
func TestLength(t *testing.T) {
	for _, tt := range []struct {
		v    cty.Value
		want int64
	}{
		{cty.ObjectVal(map[string]cty.Value{"a": cty.True, "b": cty.False}), 2},
		{cty.ListVal([]cty.Value{cty.True}), 1},
		{cty.MapValEmpty(cty.String), 0},
		{cty.StringVal("añb"), 3},
		{cty.TupleVal([]cty.Value{cty.True, cty.StringVal("x")}), 2},
	} {
		got, err := lengthFunc.Call([]cty.Value{tt.v})
		if err != nil {
			t.Errorf("length(%#v): %v", tt.v, err)
			continue
		}
		if n, _ := got.AsBigFloat().Int64(); n != tt.want {
			t.Errorf("length(%#v) = %d, want %d", tt.v, n, tt.want)
		}
	}
	if _, err := lengthFunc.Call([]cty.Value{cty.True}); err == nil {
		t.Error("length(true): no error")
	}
}
