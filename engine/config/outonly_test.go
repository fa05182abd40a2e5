package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A node that reads nothing of others but their out path evaluates the same
// whatever their digests; any other read of a node, directly or through a
// local, makes it depend on their values.
func TestReadsOnlyOut(t *testing.T) {
	p, diags := load(t, `
locals {
  plain = "x"
  up    = exec.a.digest
}
exec "a" {
  command = "echo a > $KILN_OUT/a"
}
exec "b" {
  command    = "cat ${exec.a.out}/a ${local.plain}"
  depends_on = [exec.c]
}
exec "c" {
  command = "echo ${exec.a.digest}"
}
exec "d" {
  command = "echo ${local.up}"
}
exec "e" {
  command = "echo ${length(exec.a)}"
}
exec "f" {
  for_each = { x = 1 }
  command  = "cat ${exec.f2["x"].out}/a"
}
exec "f2" {
  for_each = { x = 1 }
  command  = "true"
}
exec "g" {
  command = "echo ${exec.a.out}"
  env     = { D = exec.a.digest }
}
`, Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	got := map[string]bool{}
	for _, n := range p.Nodes {
		got[n.Addr.String()] = n.ReadsOnlyOut()
	}
	want := map[string]bool{
		"exec.a": true, "exec.b": true, "exec.c": false, "exec.d": false, "exec.e": false,
		`exec.f["x"]`: true, `exec.f2["x"]`: true, "exec.g": false,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ReadsOnlyOut (-want +got):\n%s", diff)
	}
}
