package config

import (
	"testing"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/zclconf/go-cty/cty"
)

// testValues gives each node an {out, digest, blocked} object, the digest
// known only where digests names it. stringValues offers NodeString as
// well, as plan.Values does; a Values that does not is read by NodeValue.
type testValues struct {
	p       *Pipeline
	digests map[string]cty.Value
	asked   int // NodeString calls
}

func (v *testValues) NodeValue(a addr.Node) (cty.Value, bool) {
	d, ok := v.digests[a.String()]
	if !ok {
		d = cty.UnknownVal(cty.String)
	}
	return cty.ObjectVal(map[string]cty.Value{"out": cty.StringVal(v.p.OutPath(a)), "digest": d, "blocked": cty.StringVal("")}), true
}

type stringValues struct{ *testValues }

func (v stringValues) NodeString(a addr.Node, attr string) (cty.Value, bool) {
	v.asked++
	x, _ := v.NodeValue(a)
	return x.GetAttr(attr), true
}

// Every node evaluateDirect reads gives what HCL gives, with and without
// NodeString; the nodes it must leave to HCL are left.
func TestEvaluateDirectIsHCLs(t *testing.T) {
	p, diags := load(t, `
variable "s" {
  default = "plain"
}
variable "secret" {
  default = "x"
}
locals {
  l      = "local"
  ids    = toset(["i1", "i2"])
}
exec "a" {
  command = "echo a > $KILN_OUT/x"
}
exec "b" {
  inputs  = ["src/in.txt", "src/${exec.a.out}"]
  command = "cat ${exec.a.out}/x src/in.txt | cksum > $KILN_OUT/y"
  dir     = "${path.root}/sub"
  outputs = []
}
exec "known" {
  command = "echo ${exec.a.digest} ${exec.b.out} ${self.out}"
}
exec "each" {
  for_each = toset(["k1", "k2"])
  command  = "echo ${each.key} ${exec.a.out}"
}
exec "counted" {
  count   = 2
  command = "echo ${count.index}"
}
exec "wrapped" {
  command = "${exec.a.out}"
}
exec "unknown" {
  command = "echo ${exec.b.digest}"
}
exec "local" {
  command = "echo ${local.l}"
}
exec "var" {
  command = "echo ${var.s}"
}
exec "call" {
  command = "echo ${upper("x")}"
}
exec "instance" {
  command = "echo ${exec.each["k1"].out}"
}
exec "s0" {
  for_each = local.ids
  command  = "echo ${each.key} > $KILN_OUT/x"
}
exec "s1" {
  for_each = local.ids
  command  = "cat ${exec.s0[each.key].out}/x"
}
exec "other" {
  for_each = local.ids
  command  = "cat ${exec.s0["i1"].out}/x ${exec.s0[each.key].digest}"
}
exec "follows" {
  for_each = exec.each
  command  = "echo ${each.value.out}"
}
exec "number" {
  command = 1
}
exec "argv" {
  command = ["cat", "${exec.a.out}/x"]
}
exec "wrong" {
  command = "true"
  dir     = ["x"]
}
exec "bool" {
  command = "echo ${true}"
}
exec "env" {
  command    = "true"
  env_append = { PATH = ["/x"] }
}
`, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	direct := map[string]bool{
		`exec.a`: true, `exec.b`: true, `exec.known`: true, `exec.each["k1"]`: true, `exec.each["k2"]`: true,
		`exec.counted[0]`: true, `exec.counted[1]`: true, `exec.wrapped`: true, `exec.number`: true, `exec.argv`: true,
		`exec.bool`: true, `exec.instance`: true, `exec.s0["i1"]`: true, `exec.s0["i2"]`: true, `exec.s1["i1"]`: true,
		`exec.s1["i2"]`: true, `exec.other["i1"]`: true, `exec.follows["k1"]`: true, `exec.follows["k2"]`: true,
	}
	for _, withStrings := range []bool{false, true} {
		tv := &testValues{p: p, digests: map[string]cty.Value{"exec.a": cty.StringVal("d41d8c"), `exec.s0["i1"]`: cty.StringVal("e3b0c4")}}
		var vals Values = tv
		if withStrings {
			vals = stringValues{tv}
		}
		seen := 0
		for _, n := range p.Nodes {
			if n.Placeholder() {
				continue
			}
			seen++
			body := n.Block.Body()
			got, ok := p.evaluateDirect(n, vals, "${self.out}", body)
			if ok != direct[n.Addr.String()] {
				t.Errorf("%s: read directly %v, want %v", n.Addr, ok, direct[n.Addr.String()])
				continue
			}
			if !ok {
				continue
			}
			want, diags := p.evaluateHCL(n, vals, "${self.out}", nil, body)
			if d := directDiffers(n, got, want, diags); d != nil {
				t.Errorf("%s: %s", n.Addr, d.Error())
			}
		}
		if seen < len(direct) {
			t.Fatalf("evaluated %d nodes, fewer than the %d read directly", seen, len(direct))
		}
		if withStrings && tv.asked == 0 {
			t.Error("no value was read by NodeString")
		}
	}
}

// With VerifyDirect, a difference between the two evaluations is an
// error that names the node.
func TestVerifyDirectReportsADifference(t *testing.T) {
	p, diags := load(t, `
exec "a" {
  command = "echo a"
}
exec "b" {
  command = "cat ${exec.a.out}"
}
`, Options{VerifyDirect: true})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	n := p.Nodes[1]
	tv := &testValues{p: p}
	if _, diags := p.Evaluate(n, tv, "${self.out}"); diags.HasErrors() {
		t.Fatalf("the two evaluations agree, yet: %s", diags)
	}
	// A value whose out differs between its object and its strings makes
	// the two evaluations see different upstreams.
	if _, diags := p.Evaluate(n, lyingValues{tv}, "${self.out}"); !diags.HasErrors() {
		t.Fatal("a difference between the direct evaluation and HCL's was not reported")
	}
}

type lyingValues struct{ *testValues }

func (v lyingValues) NodeString(a addr.Node, attr string) (cty.Value, bool) {
	return cty.StringVal("/elsewhere"), true
}
