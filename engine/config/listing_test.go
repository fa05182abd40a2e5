package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// TestValueName: only an expression that names a value and does nothing
// else shares its listing with the other blocks that name it.
func TestValueName(t *testing.T) {
	for src, want := range map[string]string{
		"local.ids":         "local.ids",
		"var.samples":       "var.samples",
		"var.cfg.samples":   "var.cfg.samples",
		"local":             "",
		`local.ids["a"]`:    "",
		"local.ids[0]":      "",
		"toset(var.names)":  "",
		"exec.map":          "exec.map",
		`{ a = local.ids }`: "",
	} {
		e, diags := hclsyntax.ParseExpression([]byte(src), "t.hcl", hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		if got := valueName(e); got != want {
			t.Errorf("valueName(%s) = %q, want %q", src, got, want)
		}
	}
}

// TestBlocksNamingOneValueShareItsListing: blocks whose for_each names the
// same local or variable each get all of its instances, with their own
// each.value, beside blocks naming other values and a block whose
// for_each is an expression of the same value.
func TestBlocksNamingOneValueShareItsListing(t *testing.T) {
	p, diags := load(t, `
variable "m" {
  type    = map(string)
  default = { k1 = "v1", k2 = "v2" }
}
locals {
  ids   = toset(["b", "a", "c"])
  other = toset(["z"])
}
exec "one" {
  for_each = local.ids
  command  = "echo ${each.key}"
}
exec "two" {
  for_each = local.ids
  command  = "cat ${exec.one[each.key].out}"
}
exec "three" {
  for_each = local.other
  command  = "echo ${each.key}"
}
exec "four" {
  for_each = var.m
  command  = "echo ${each.value}"
}
exec "five" {
  for_each = var.m
  command  = "echo ${each.key}"
}
exec "six" {
  for_each = toset([for id in local.ids : "${id}x"])
  command  = "echo ${each.key}"
}
`, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var got []string
	for _, n := range p.Nodes {
		got = append(got, n.Addr.String()+"="+n.Each.Value.AsString())
	}
	want := []string{
		`exec.five["k1"]=v1`, `exec.five["k2"]=v2`,
		`exec.four["k1"]=v1`, `exec.four["k2"]=v2`,
		`exec.one["a"]=a`, `exec.one["b"]=b`, `exec.one["c"]=c`,
		`exec.six["ax"]=ax`, `exec.six["bx"]=bx`, `exec.six["cx"]=cx`,
		`exec.three["z"]=z`,
		`exec.two["a"]=a`, `exec.two["b"]=b`, `exec.two["c"]=c`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("instances (-want +got):\n%s", diff)
	}
	for _, n := range p.Nodes {
		if n.Addr.Name == "two" && (len(n.Deps) != 1 || n.Deps[0].String() != `exec.one["`+n.Each.Key.AsString()+`"]`) {
			t.Errorf("%s depends on %v, want its own key's exec.one", n.Addr, n.Deps)
		}
	}
}
