package config

import (
	"fmt"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/providers/exec"
)

// TestLoadInParallelAgreesWithOneByOne: blocks are decoded and scanned,
// and instances resolved, in parallel; the pipeline and every diagnostic,
// in order, must be what loading them one by one gives.
func TestLoadInParallelAgreesWithOneByOne(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4)) // in parallel even on one core
	defer func(n int) { perWorker = n }(perWorker)
	var b strings.Builder
	b.WriteString(`
variable "names" {
  type    = set(string)
  default = ["a", "b", "c"]
}
locals {
  t     = "30s"
  first = exec.n0.out
}
exec "each" {
  for_each = var.names
  command  = "echo ${each.key} ${local.first}"
  timeout  = local.t
}
exec "shard" {
  count     = 3
  command   = "echo ${count.index} ${exec.each["b"].out}"
  resources = { cpu = count.index + 1 }
}
`)
	for i := range 40 {
		fmt.Fprintf(&b, "exec \"n%d\" {\n  command = \"echo ${exec.shard[%d].out} ${exec.n%d.digest}\"\n", i, i%3, max(i-1, 0))
		switch i % 5 {
		case 1:
			fmt.Fprintf(&b, "  depends_on = [exec.each[\"a\"], exec.shard]\n")
		case 2:
			fmt.Fprintf(&b, "  timeout = \"%ds\"\n  always_run = true\n", i)
		case 3:
			fmt.Fprintf(&b, "  retries = %d\n  progress = \"step (\\\\d+)\"\n", i)
		}
		b.WriteString("}\n")
	}
	good := strings.Replace(b.String(), "${exec.n0.digest}", "", 1)
	// The same with errors in blocks all along the file.
	bad := good + `
exec "n5" { command = "again" }
exec "wrong" {
  command = "x"
  comand  = "y"
}
exec "late" {
  command = "echo ${exec.nope.out}"
  timeout = "soon"
}
variable "v" { type = strin }
exec "9bad" { command = "x" }
`
	for name, src := range map[string]string{"good": good, "bad": bad} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "p.hcl", src)
			opts := Options{Kinds: []kind.Kind{exec.New()}, Env: []string{}}
			perWorker = 1 << 30
			one, oneDiags := Load(dir, opts)
			perWorker = 1
			par, parDiags := Load(dir, opts)
			if diff := cmp.Diff(diagList(oneDiags), diagList(parDiags)); diff != "" {
				t.Fatalf("diagnostics differ (-one by one +parallel):\n%s", diff)
			}
			// Here every diagnostic is of one block, reported in the
			// order of the file.
			for i := 1; i < len(parDiags); i++ {
				if parDiags[i].Subject.Start.Line < parDiags[i-1].Subject.Start.Line {
					t.Errorf("diagnostics out of the file's order:\n%s", strings.Join(diagList(parDiags), "\n"))
					break
				}
			}
			if name == "good" && oneDiags.HasErrors() {
				t.Fatal(oneDiags)
			}
			if name == "bad" && len(oneDiags) < 4 {
				t.Fatalf("the pipeline with errors gave %d diagnostics, want 4", len(oneDiags))
			}
			if one == nil || par == nil {
				return
			}
			if diff := cmp.Diff(describe(one), describe(par)); diff != "" {
				t.Errorf("the pipelines differ (-one by one +parallel):\n%s", diff)
			}
		})
	}
}

func diagList(diags hcl.Diagnostics) []string {
	var out []string
	for _, d := range diags {
		out = append(out, fmt.Sprintf("%v: %s; %s", d.Subject, d.Summary, d.Detail))
	}
	return out
}

// describe is what loading made of each instance.
func describe(p *Pipeline) []string {
	var out []string
	for _, n := range p.Nodes {
		out = append(out, fmt.Sprintf("%s deps=%v partial=%v meta=%+v refs=%d locals=%v outOnly=%v self=%v selfOut=%v env=%v",
			n.Addr, n.Deps, n.partial, n.Meta, len(n.Block.refs), n.Block.locals, n.Block.outOnly, n.Block.self, n.Block.selfOut, n.Block.callsEnv))
	}
	return out
}

// TestSpecVariablesAgreeWithHCL: the variables a block's own attributes
// read, taken from the body directly, are those hcldec.Variables finds —
// the meta-arguments' left out.
func TestSpecVariablesAgreeWithHCL(t *testing.T) {
	p, diags := load(t, `
variable "v" {
  type    = string
  default = "x"
}
locals {
  l = "y"
}
exec "a" { command = "true" }
exec "b" {
  count      = 2
  command    = ["sh", "-c", "cat ${exec.a.out}/o ${var.v} ${local.l} > $KILN_OUT/o ${count.index}"]
  dir        = exec.a.out
  env        = { X = exec.a.digest, Y = "${self.out}/y" }
  outputs    = [for o in ["p", "q"] : "${exec.a.out}/${o}"]
  depends_on = [exec.a]
  timeout    = "${length(exec.a.out) + 1}s"
}
`, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	names := func(travs []hcl.Traversal) []string {
		var out []string
		for _, tr := range travs {
			out = append(out, fmt.Sprintf("%s@%s", tr.RootName(), tr.SourceRange()))
		}
		sort.Strings(out)
		return out
	}
	for _, b := range p.Blocks {
		if !b.spec.attrsOnly {
			t.Fatalf("exec's spec is taken not to be made of attributes alone: %v", b.spec.attrs)
		}
		want := names(hcldec.Variables(b.Body(), b.spec.spec))
		got := names(specVariables(b))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: variables (-hcldec +body):\n%s", b.Addr(), diff)
		}
		if b.Name == "b" && len(got) < 6 {
			t.Errorf("%s: only %d variables found: %v", b.Addr(), len(got), got)
		}
	}
}
