// Command gen writes the layered benchmark DAG three ways — a kiln
// pipeline.hcl, a Makefile and a build.ninja, each with its source files —
// under -out/kiln, -out/make and -out/ninja. With -compare it writes nothing
// and instead checks that the three trees, once built, hold the same bytes
// for every node. bench/run.sh drives it.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/kilnbuild/kiln/bench/layered"
)

func main() {
	var p layered.Params
	out := flag.String("out", "bench/out", "folder to write the three trees into")
	compare := flag.Bool("compare", false, "compare the built trees instead of writing them")
	flag.IntVar(&p.N, "n", 10000, "number of nodes")
	flag.IntVar(&p.Layers, "layers", 0, "number of layers (default: the square root of -n)")
	flag.Uint64Var(&p.Seed, "seed", 1, "seed that picks each node's 1 to 3 upstream nodes")
	flag.Parse()
	d, err := layered.New(p)
	if err != nil {
		fail(err)
	}
	if *compare {
		bad, err := layered.Compare(*out, d)
		if err != nil {
			fail(err)
		}
		for i, m := range bad {
			if i == 10 {
				fmt.Fprintf(os.Stderr, "... and %d more\n", len(bad)-10)
				break
			}
			fmt.Fprintf(os.Stderr, "%s: %s\n", m.Node, m.Detail)
		}
		if len(bad) > 0 {
			fail(fmt.Errorf("%d of %d nodes differ between kiln, make and ninja", len(bad), d.Len()))
		}
		fmt.Printf("outputs agree: %d nodes, same bytes in kiln, make and ninja\n", d.Len())
		return
	}
	if err := layered.Write(*out, d); err != nil {
		fail(err)
	}
	fmt.Printf("wrote %d nodes in %d layers (%d edges, seed %d) under %s\n", d.Len(), len(d.Layers), d.Edges(), d.Params.Seed, *out)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gen:", err)
	os.Exit(1)
}
