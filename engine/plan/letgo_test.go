package plan

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/zclconf/go-cty/cty"
)

// letGoPipeline has a static for_each, a block following it, a dynamic
// block (deferred: what it globs is not built), a node reading one
// instance, and a node of its own: four waves.
const letGoPipeline = `
exec "split" {
  command = "for i in 1 2; do echo $i > $KILN_OUT/shard-$i.txt; done"
}

exec "annotate" {
  for_each = glob_wildcards("${exec.split.out}/shard-{n}.txt")
  command  = "cat ${each.value} > $KILN_OUT/out.txt"
}

exec "a" {
  for_each = toset(["x", "y", "z"])
  inputs   = ["in.txt"]
  command  = "cat in.txt > $KILN_OUT/${each.key}"
}

exec "b" {
  for_each = exec.a
  command  = "cat ${each.value.out}/${each.key} > $KILN_OUT/b"
}

exec "all" {
  command = "cat ${exec.b["x"].out}/b > $KILN_OUT/all"
}
`

// TestMakeLetsGoOfEachBlockOnceDecided: with LetGo, every block is held
// while one of its nodes in scope is still to be decided, its evaluated
// configuration and key lines are held until Decided has them, and once
// the plan is made no block keeps its syntax nor any decision its
// configuration, key lines or inputs; the plan is the one made holding
// everything. A block with a node out of scope (-target) is kept.
func TestMakeLetsGoOfEachBlockOnceDecided(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"pipeline.hcl": letGoPipeline, "in.txt": "in"})
	decide := func(letGo bool, targets ...string) (*Decider, *Plan) {
		d := openDecider(t, dir)
		dag, diags := BuildDAG(d.Pipeline)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		var ts []addr.Node
		for _, s := range targets {
			a, err := addr.Parse(s)
			if err != nil {
				t.Fatal(err)
			}
			ts = append(ts, a)
		}
		scope, err := dag.Scope(ts)
		if err != nil {
			t.Fatal(err)
		}
		total := map[*config.Block]int{}
		for v, n := range dag.Nodes {
			if scope[v] && !n.Placeholder() {
				total[n.Block]++
			}
		}
		var mu sync.Mutex
		heard := map[*config.Block]int{}
		d.LetGo = letGo
		d.Decided = func(dec *Decision) {
			mu.Lock()
			defer mu.Unlock()
			heard[dec.Node.Block]++
			if dec.Config == nil || dec.KindNode == nil || dec.Action == NoOp && dec.Value == cty.NilVal {
				t.Errorf("%s: Decided got no evaluated configuration or no value", dec.Node.Addr)
			}
			if dec.Key != "" && len(dec.KeyLines) == 0 {
				t.Errorf("%s: Decided got a key without its lines", dec.Node.Addr)
			}
			for b, n := range total {
				if heard[b] < n && !b.Held() {
					t.Errorf("deciding %s: block %s was let go with %d of its %d nodes decided", dec.Node.Addr, b.Name, heard[b], n)
				}
			}
		}
		pl, diags := d.Make(context.Background(), dag, scope)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		return d, pl
	}
	_, held := decide(false)
	d, let := decide(true)
	if diff := cmp.Diff(summary(held), summary(let)); diff != "" {
		t.Errorf("the plan made letting go differs (-held +let go):\n%s", diff)
	}
	for _, b := range d.Pipeline.Blocks {
		if b.Held() {
			t.Errorf("block %s still holds its syntax after the plan", b.Name)
		}
	}
	for _, dec := range let.Changes {
		if dec.Config != nil || dec.KindNode != nil || dec.Value != cty.NilVal {
			t.Errorf("%s still holds its evaluated configuration or its value after the plan", dec.Node.Addr)
		}
		if dec.KeyLines != nil || dec.Inputs != nil || dec.Listing != nil {
			t.Errorf("%s still holds its key lines or its inputs after the plan", dec.Node.Addr)
		}
	}
	d, _ = decide(true, `exec.a["x"]`)
	for _, b := range d.Pipeline.Blocks {
		if b.Name == "a" && !b.Held() {
			t.Error("block a, with two nodes out of scope, was let go")
		}
		if b.Name != "a" && !b.Held() {
			t.Errorf("block %s, out of scope, was let go", b.Name)
		}
	}
}

// summary is each decision of pl as a line: address, action, key, reasons.
func summary(pl *Plan) []string {
	var out []string
	for _, dec := range pl.Changes {
		var reasons []string
		for _, r := range dec.Reasons {
			reasons = append(reasons, r.String())
		}
		out = append(out, fmt.Sprintf("%s %s %s [%s]", dec.Node.Addr, dec.Action.Word(), dec.Key, strings.Join(reasons, "; ")))
	}
	return out
}
