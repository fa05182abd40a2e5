package config

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/zclconf/go-cty/cty"
)

// valueMap is a Values of given node values, the static value for others.
type valueMap struct {
	p    *Pipeline
	vals map[addr.Node]cty.Value
}

func (v valueMap) NodeValue(a addr.Node) (cty.Value, bool) {
	if x, ok := v.vals[a]; ok {
		return x, true
	}
	return v.p.StaticValue(a), true
}

func built(p *Pipeline, a addr.Node, digest string) cty.Value {
	return cty.ObjectVal(map[string]cty.Value{"out": cty.StringVal(p.OutPath(a)), "digest": cty.StringVal(digest), "blocked": cty.StringVal("")})
}

// deps lists every instance with its dependencies, one line each.
func deps(p *Pipeline) string {
	var lines []string
	nodes, _ := p.Concrete()
	for _, n := range nodes {
		lines = append(lines, n.Addr.String()+" <- "+depStrings(n))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func mustParse(t *testing.T, s string) addr.Node {
	t.Helper()
	a, err := addr.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// for_each = exec.map over a static for_each block is static itself: the
// same instances as the block it follows, and the same edges as the
// pipeline written with for_each = local.samples and exec.map[each.key],
// each instance depending on its own instance of map alone.
func TestFollowerIsStatic(t *testing.T) {
	head := `
locals {
  samples = { a = "1", b = "2", c = "3" }
}
exec "map" {
  for_each = local.samples
  command  = "echo ${each.value}"
}
exec "merge" {
  command = join(" ", [for k, c in exec.call : c.out])
}
`
	follow, diags := load(t, head+`
exec "sort" {
  for_each = exec.map
  command  = "sort ${exec.map[each.key].out}/x"
}
exec "index" {
  for_each = exec.sort
  command  = "wc -l ${each.value.out}/x"
}
exec "call" {
  for_each = exec.sort
  command  = "cat ${each.value.out}/x ${exec.index[each.key].out}/x"
}
`, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	plain, diags := load(t, head+`
exec "sort" {
  for_each = local.samples
  command  = "sort ${exec.map[each.key].out}/x"
}
exec "index" {
  for_each = local.samples
  command  = "wc -l ${exec.sort[each.key].out}/x"
}
exec "call" {
  for_each = local.samples
  command  = "cat ${exec.sort[each.key].out}/x ${exec.index[each.key].out}/x"
}
`, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for _, n := range follow.Nodes {
		if n.Placeholder() || n.Dynamic != nil {
			t.Errorf("%s is dynamic", n.Addr)
		}
	}
	for _, blk := range []string{"exec.sort", "exec.index", "exec.call"} {
		if follow.Dynamic(mustParse(t, blk)) {
			t.Errorf("%s is a dynamic block", blk)
		}
	}
	want := `exec.call["a"] <- exec.index["a"] exec.sort["a"]
exec.call["b"] <- exec.index["b"] exec.sort["b"]
exec.call["c"] <- exec.index["c"] exec.sort["c"]
exec.index["a"] <- exec.sort["a"]
exec.index["b"] <- exec.sort["b"]
exec.index["c"] <- exec.sort["c"]
exec.map["a"] <- 
exec.map["b"] <- 
exec.map["c"] <- 
exec.merge <- exec.call["a"] exec.call["b"] exec.call["c"]
exec.sort["a"] <- exec.map["a"]
exec.sort["b"] <- exec.map["b"]
exec.sort["c"] <- exec.map["c"]`
	if diff := cmp.Diff(want, deps(follow)); diff != "" {
		t.Errorf("for_each = exec.map (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(deps(plain), deps(follow)); diff != "" {
		t.Errorf("for_each = exec.map against for_each = local.samples (-plain +follow):\n%s", diff)
	}
	// The configurations are the same text too.
	for _, a := range []string{`exec.sort["b"]`, `exec.index["b"]`, `exec.call["c"]`} {
		f, diags := follow.Evaluate(follow.Node(mustParse(t, a)), staticValues{follow}, "/out")
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		pl, diags := plain.Evaluate(plain.Node(mustParse(t, a)), staticValues{plain}, "/out")
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		fc := strings.ReplaceAll(f.Config.GetAttr("command").AsString(), follow.StateDir, "STATE")
		pc := strings.ReplaceAll(pl.Config.GetAttr("command").AsString(), plain.StateDir, "STATE")
		if fc != pc {
			t.Errorf("%s: command %q, want %q", a, fc, pc)
		}
	}
}

// each.value of a follower is the value of the instance it follows as the
// plan or apply has it; a follower that reads only each.key depends on
// nothing, and one that reads no more than each.value.out reads only out.
func TestFollowerEachValue(t *testing.T) {
	p, diags := load(t, `
exec "map" {
  for_each = toset(["a", "b"])
  command  = "echo ${each.key}"
}
exec "digest" {
  for_each = exec.map
  command  = "echo ${each.value.digest}"
}
exec "out" {
  for_each = exec.map
  command  = "cat ${each.value.out}/x"
}
exec "whole" {
  for_each = exec.map
  command  = jsonencode(each)
}
exec "key" {
  for_each = exec.map
  command  = "echo ${each.key}"
}
`, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	mapB := mustParse(t, `exec.map["b"]`)
	vals := valueMap{p, map[addr.Node]cty.Value{mapB: built(p, mapB, "d-b")}}
	ev, diags := p.Evaluate(p.Node(mustParse(t, `exec.digest["b"]`)), vals, "/out")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if got := ev.Config.GetAttr("command").AsString(); got != "echo d-b" {
		t.Errorf("each.value.digest: command = %q, want %q", got, "echo d-b")
	}
	for _, tt := range []struct {
		node, deps string
		outOnly    bool
	}{
		{`exec.digest["b"]`, `exec.map["b"]`, false},
		{`exec.out["b"]`, `exec.map["b"]`, true},
		{`exec.whole["a"]`, `exec.map["a"]`, false},
		{`exec.key["a"]`, ``, true},
	} {
		n := p.Node(mustParse(t, tt.node))
		if n == nil {
			t.Fatalf("no node %s", tt.node)
		}
		if got := depStrings(n); got != tt.deps {
			t.Errorf("deps of %s = %q, want %q", tt.node, got, tt.deps)
		}
		if n.ReadsOnlyOut() != tt.outOnly {
			t.Errorf("%s: ReadsOnlyOut() = %v, want %v", tt.node, n.ReadsOnlyOut(), tt.outOnly)
		}
	}
}

// A follower of a dynamic block is dynamic, and follows a follower of one;
// a for_each over a count block or over a whole expression stays as it
// was (dynamic, decided from results).
func TestFollowerOfDynamicBlock(t *testing.T) {
	p, diags := load(t, `
exec "split" {
  command = "true"
}
exec "shard" {
  for_each = glob_wildcards("${exec.split.out}/{n}.txt")
  command  = "cat ${each.value}"
}
exec "count" {
  for_each = exec.shard
  command  = "wc -c ${each.value.out}/out.txt"
}
exec "again" {
  for_each = exec.count
  command  = "cat ${each.value.out}/n"
}
exec "many" {
  count   = 2
  command = "true"
}
exec "over_count" {
  for_each = exec.many
  command  = "true"
}
`, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for blk, dynamic := range map[string]bool{"exec.shard": true, "exec.count": true, "exec.again": true, "exec.over_count": true, "exec.many": false} {
		if p.Dynamic(mustParse(t, blk)) != dynamic {
			t.Errorf("Dynamic(%s) = %v, want %v", blk, !dynamic, dynamic)
		}
	}
}

// countLookups counts the file system lookups of source files.
func countLookups(t *testing.T) *int {
	n := new(int)
	stat, readDir := sourceStat, sourceReadDir
	sourceStat = func(name string) (os.FileInfo, error) { *n++; return stat(name) }
	sourceReadDir = func(name string) ([]os.DirEntry, error) { *n++; return readDir(name) }
	t.Cleanup(func() { sourceStat, sourceReadDir = stat, readDir })
	return n
}

// expandAll expands, in order, the placeholders of the given blocks.
func expandAll(t *testing.T, p *Pipeline, vals Values, blocks ...string) {
	t.Helper()
	for _, b := range blocks {
		var ph *Node
		for _, n := range p.Nodes {
			if n.Placeholder() && n.Addr.Block().String() == b {
				ph = n
			}
		}
		if ph == nil {
			t.Fatalf("no placeholder of %s", b)
		}
		if _, diags := p.Expand(ph, vals); diags.HasErrors() {
			t.Fatal(diags)
		}
	}
}

// An instance of a follower of a dynamic block is made from its own
// instance of that block: its files are looked for under that result
// alone. And an expansion's lookups grow with its instances, not with
// instances × results: with N shards, a few per instance. (Joining every
// string of every instance to every result, as expansions once did, is
// 3 N² lookups here.)
func TestExpansionLooksUpLinearly(t *testing.T) {
	const n = 2000
	p, diags := load(t, `
exec "split" {
  command = "true"
}
exec "shard" {
  for_each = glob_wildcards("${exec.split.out}/{n}.txt")
  command  = "cat ${each.value}"
}
exec "count" {
  for_each = exec.shard
  command  = "wc -c ${each.value.out}/out.txt"
}
exec "named" {
  for_each = { for k, s in exec.shard : k => s.out }
  command  = "true"
}
`, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	split := mustParse(t, "exec.split")
	vals := valueMap{p, map[addr.Node]cty.Value{split: built(p, split, "d-split")}}
	mkdir := func(dir string) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mkdir(p.OutPath(split))
	for i := range n {
		write(t, p.OutPath(split), fmt.Sprintf("%d.txt", i), "x")
	}
	expandAll(t, p, vals, "exec.shard")
	shards, _ := p.Expanded(mustParse(t, "exec.shard"))
	if len(shards) != n {
		t.Fatalf("%d shards, want %d", len(shards), n)
	}
	if got, want := shards[7].Dynamic.Files, []string{filepath.Join(p.OutPath(split), shards[7].Addr.Key.Str+".txt")}; !cmp.Equal(got, want) {
		t.Errorf("files of %s = %q, want %q", shards[7].Addr, got, want)
	}
	// Each shard's result holds out.txt and a file named as the shard 1
	// key: the one under its own result is its source.
	for _, s := range shards {
		mkdir(p.OutPath(s.Addr))
		write(t, p.OutPath(s.Addr), "out.txt", "y")
		vals.vals[s.Addr] = built(p, s.Addr, "d-"+s.Addr.Key.Str)
	}
	write(t, p.OutPath(shards[1].Addr), shards[1].Addr.Key.Str, "z")
	write(t, p.OutPath(shards[2].Addr), shards[1].Addr.Key.Str, "z")
	lookups := countLookups(t)
	expandAll(t, p, vals, "exec.count")
	if *lookups > 4*n {
		t.Errorf("expanding %d followers looked up %d files, more than 4 per instance", n, *lookups)
	}
	counts, _ := p.Expanded(mustParse(t, "exec.count"))
	if len(counts) != n {
		t.Fatalf("%d instances of exec.count, want %d", len(counts), n)
	}
	for _, c := range counts {
		want := []string(nil)
		if c.Addr.Key == shards[1].Addr.Key {
			want = []string{filepath.Join(p.OutPath(shards[1].Addr), shards[1].Addr.Key.Str)}
		}
		if !cmp.Equal(c.Dynamic.Files, want) {
			t.Errorf("files of %s = %q, want %q", c.Addr, c.Dynamic.Files, want)
		}
		src := shards[0].Addr
		src.Key = c.Addr.Key
		if got := depStrings(c); got != src.String() {
			t.Errorf("deps of %s = %q, want %s", c.Addr, got, src)
		}
	}
	// A for_each over the whole block reads every result: a relative name
	// is looked for under each of them that holds it, still a few lookups
	// per instance.
	*lookups = 0
	expandAll(t, p, vals, "exec.named")
	if *lookups > 4*n {
		t.Errorf("expanding %d instances over %d results looked up %d files, more than 4 per instance", n, n, *lookups)
	}
	named, _ := p.Expanded(mustParse(t, "exec.named"))
	k1 := shards[1].Addr.Key
	for _, c := range named {
		want := []string(nil)
		if c.Addr.Key == k1 {
			want = []string{filepath.Join(p.OutPath(shards[1].Addr), k1.Str), filepath.Join(p.OutPath(shards[2].Addr), k1.Str)}
			sort.Strings(want)
		}
		if !cmp.Equal(c.Dynamic.Files, want) {
			t.Errorf("files of %s = %q, want %q", c.Addr, c.Dynamic.Files, want)
		}
	}
}
