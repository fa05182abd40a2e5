package run_test

import (
	"context"
	"sync"
	"testing"

	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/run"
	"github.com/kilnbuild/kiln/engine/state"
)

// bodyHooks checks, as each node finishes, that its block's syntax tree is
// held while an instance of the block is still to have its turn, and let
// go once the last one has (kept for a temp block).
type bodyHooks struct {
	run.NoHooks
	t        *testing.T
	p        *config.Pipeline
	want     map[string]int // instances per block name
	kept     map[string]bool
	mu       sync.Mutex
	finished map[string]int
}

func (h *bodyHooks) Finished(r run.NodeResult) {
	h.mu.Lock()
	defer h.mu.Unlock()
	name := r.Addr.Name
	h.finished[name]++
	var b *config.Block
	for _, c := range h.p.Blocks {
		if c.Name == name {
			b = c
		}
	}
	last := h.finished[name] == h.want[name]
	switch held := b.Held(); {
	case h.kept[name] && !held:
		h.t.Errorf("%s finished: the syntax of temp block %s was let go; a dependent may have it rebuilt", r.Addr, name)
	case h.kept[name]:
	case last && held:
		h.t.Errorf("%s finished, the last instance of %s: its syntax is still held", r.Addr, name)
	case !last && !held:
		h.t.Errorf("%s finished, %d of %d instances of %s: its syntax was let go too early", r.Addr, h.finished[name], h.want[name], name)
	}
}

func TestApplyLetsGoOfEachBlockAfterItsLastInstance(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"pipeline.hcl": `
exec "split" {
  command = "for i in 1 2 3; do echo $i > $KILN_OUT/shard-$i.txt; done"
}

exec "annotate" {
  for_each = glob_wildcards("${exec.split.out}/shard-{n}.txt")
  command  = "cat ${each.value} > $KILN_OUT/out.txt"
}

exec "count" {
  for_each = exec.annotate
  command  = "wc -c < ${each.value.out}/out.txt > $KILN_OUT/n.txt"
}

exec "t" {
  temp    = true
  command = "echo t > $KILN_OUT/t.txt"
}

exec "a" {
  for_each = toset(["x", "y", "z"])
  command  = "cat ${exec.t.out}/t.txt > $KILN_OUT/${each.key}.txt"
}
`})
	o := open(t, dir)
	h := &bodyHooks{t: t, p: o.pipeline, finished: map[string]int{},
		want: map[string]int{"split": 1, "annotate": 3, "count": 3, "t": 1, "a": 3},
		kept: map[string]bool{"t": true}}
	w, err := state.OpenWriter(o.pipeline.StateDir, o.state)
	if err != nil {
		t.Fatal(err)
	}
	o.decider.State = o.state.Snapshot()
	a := &run.Applier{Decider: o.decider, DAG: o.dag, Writer: w, Options: run.Options{
		Parallelism: 1, Hooks: h, Writable: []string{dir}, LetGo: true}}
	res, err := a.Apply(context.Background())
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Count(run.Built); got != 11 || res.Failed() {
		for _, n := range res.Nodes {
			if n.Err != nil {
				t.Errorf("%s: %v", n.Addr, n.Err)
			}
		}
		t.Fatalf("built %d of 11 nodes: %v", got, outcomes(res))
	}
	for name, n := range h.want {
		if h.finished[name] != n {
			t.Errorf("%s: %d instances finished, want %d", name, h.finished[name], n)
		}
	}
}
