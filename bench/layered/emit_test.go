package layered

import (
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// tiny is n_0_0, n_0_1 and n_1_0 reading both.
var tiny = &DAG{
	Params: Params{N: 3, Layers: 2, Seed: 9},
	Layers: [][]Node{
		{{Layer: 0, Index: 0}, {Layer: 0, Index: 1}},
		{{Layer: 1, Index: 0, Deps: []int{0, 1}}},
	},
}

func TestEmit(t *testing.T) {
	for _, tc := range []struct {
		name string
		emit func(io.Writer, *DAG) error
		want string
	}{
		{"hcl", WriteHCL, `# Layered benchmark DAG: 3 nodes in 2 layers, 2 edges, seed 9.

exec "n_0_0" {
  inputs  = ["src/n_0_0.txt"]
  command = "cksum < src/n_0_0.txt > $KILN_OUT/out.txt"
}

exec "n_0_1" {
  inputs  = ["src/n_0_1.txt"]
  command = "cksum < src/n_0_1.txt > $KILN_OUT/out.txt"
}

exec "n_1_0" {
  command = "cat ${exec.n_0_0.out}/out.txt ${exec.n_0_1.out}/out.txt | cksum > $KILN_OUT/out.txt"
}
`},
		{"make", WriteMakefile, `# Layered benchmark DAG: 3 nodes in 2 layers, 2 edges, seed 9.
$(shell mkdir -p build)

.PHONY: all
all: \
  build/n_0_0.txt \
  build/n_0_1.txt \
  build/n_1_0.txt

build/n_0_0.txt: src/n_0_0.txt
	cksum < src/n_0_0.txt > build/n_0_0.txt

build/n_0_1.txt: src/n_0_1.txt
	cksum < src/n_0_1.txt > build/n_0_1.txt

build/n_1_0.txt: build/n_0_0.txt build/n_0_1.txt
	cat build/n_0_0.txt build/n_0_1.txt | cksum > build/n_1_0.txt
`},
		{"ninja", WriteNinja, `# Layered benchmark DAG: 3 nodes in 2 layers, 2 edges, seed 9.
ninja_required_version = 1.3

rule sh
  command = $cmd
  description = $out

build build/n_0_0.txt: sh src/n_0_0.txt
  cmd = cksum < src/n_0_0.txt > build/n_0_0.txt

build build/n_0_1.txt: sh src/n_0_1.txt
  cmd = cksum < src/n_0_1.txt > build/n_0_1.txt

build build/n_1_0.txt: sh build/n_0_0.txt build/n_0_1.txt
  cmd = cat build/n_0_0.txt build/n_0_1.txt | cksum > build/n_1_0.txt
`},
		{"snakemake", WriteSnakefile, `# Layered benchmark DAG: 3 nodes in 2 layers, 2 edges, seed 9.
NODES = [
    "n_0_0",
    "n_0_1",
    "n_1_0",
]

DEPS = {
    "n_1_0": ["n_0_0", "n_0_1"],
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
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			if err := tc.emit(&b, tiny); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, b.String()); diff != "" {
				t.Errorf("%s text (-want +got):\n%s", tc.name, diff)
			}
		})
	}
}
