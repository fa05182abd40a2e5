package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/addr"
)

func depStrings(n *Node) string {
	var deps []string
	for _, d := range n.Deps {
		deps = append(deps, d.String())
	}
	return strings.Join(deps, " ")
}

// An index known when the pipeline loads (each.key, count.index, a
// variable) makes an edge to that one instance; a reference to the whole
// block, or a for expression over it, depends on every instance.
func TestPerInstanceEdges(t *testing.T) {
	p, diags := load(t, `
variable "pick" {
  type    = string
  default = "b"
}
locals {
  samples = { a = "1", b = "2", c = "3" }
}
exec "map" {
  for_each = local.samples
  command  = "echo ${each.value}"
}
exec "sort" {
  for_each = local.samples
  command  = "sort ${exec.map[each.key].out}/x"
}
exec "index" {
  for_each   = local.samples
  command    = "true"
  depends_on = [exec.sort[each.key]]
}
exec "shard" {
  count   = 3
  command = "echo ${count.index}"
}
exec "after_shard" {
  count   = 3
  command = "cat ${exec.shard[count.index].out}/x ${exec.map[var.pick].out}"
}
exec "merge" {
  command = join(" ", [for k, s in exec.sort : s.out])
}
exec "whole" {
  for_each = local.samples
  command  = "echo ${length(exec.map)} ${exec.map[each.key].out}"
}
exec "computed" {
  for_each = local.samples
  command  = "echo ${exec.map[upper(each.key) == "A" ? "a" : each.key].out}"
}
`, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	tests := []struct{ node, deps string }{
		{`exec.sort["a"]`, `exec.map["a"]`},
		{`exec.sort["c"]`, `exec.map["c"]`},
		{`exec.index["b"]`, `exec.sort["b"]`},
		{`exec.after_shard[2]`, `exec.map["b"] exec.shard[2]`},
		{`exec.merge`, `exec.sort["a"] exec.sort["b"] exec.sort["c"]`},
		{`exec.whole["a"]`, `exec.map["a"] exec.map["b"] exec.map["c"]`},
		{`exec.computed["c"]`, `exec.map["c"]`},
	}
	for _, tt := range tests {
		a, err := addr.Parse(tt.node)
		if err != nil {
			t.Fatal(err)
		}
		n := p.Node(a)
		if n == nil {
			t.Fatalf("no node %s", tt.node)
		}
		if diff := cmp.Diff(tt.deps, depStrings(n)); diff != "" {
			t.Errorf("deps of %s (-want +got):\n%s", tt.node, diff)
		}
	}
	// The configuration sees the one instance it names.
	n := p.Node(addr.Node{Kind: "exec", Name: "sort", Key: addr.StringKey("b")})
	ev, diags := p.Evaluate(n, staticValues{p}, "/out")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if got, want := ev.Config.GetAttr("command").AsString(), "sort "+p.OutPath(addr.Node{Kind: "exec", Name: "map", Key: addr.StringKey("b")})+"/x"; got != want {
		t.Errorf("command = %q, want %q", got, want)
	}
}

func TestPerInstanceEdgeToMissingInstance(t *testing.T) {
	_, diags := load(t, `
exec "map" {
  for_each = toset(["a"])
  command  = "true"
}
exec "sort" {
  for_each = toset(["a", "z"])
  command  = "sort ${exec.map[each.key].out}/x"
}
`, Options{})
	if !diags.HasErrors() {
		t.Fatal("no error for exec.map[\"z\"]")
	}
	if got := diags.Error(); !strings.Contains(got, `exec.map has no instance ["z"]`) {
		t.Errorf("error = %s", got)
	}
}
