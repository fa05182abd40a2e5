package plan

import (
	"testing"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/zclconf/go-cty/cty"
)

// TestValuesKeepEveryValue: whatever shape a node's value has, kept in the
// compact form or not, it reads back exactly as it was set.
func TestValuesKeepEveryValue(t *testing.T) {
	obj := func(attrs map[string]cty.Value) cty.Value { return cty.ObjectVal(attrs) }
	out := cty.StringVal("/p/.kiln/out/exec.a")
	cases := map[string]cty.Value{
		"known digest":   obj(map[string]cty.Value{"out": out, "digest": cty.StringVal("sha256:ab"), "blocked": cty.StringVal("")}),
		"unknown digest": obj(map[string]cty.Value{"out": out, "digest": cty.UnknownVal(cty.String), "blocked": cty.StringVal("")}),
		"blocked":        obj(map[string]cty.Value{"out": out, "digest": cty.UnknownVal(cty.String), "blocked": cty.StringVal("needs 8 npu")}),
		"refined digest": obj(map[string]cty.Value{"out": out, "digest": cty.UnknownVal(cty.String).RefineNotNull(), "blocked": cty.StringVal("")}),
		"exports":        obj(map[string]cty.Value{"out": out, "digest": cty.StringVal("sha256:ab"), "blocked": cty.StringVal(""), "python": cty.StringVal("/bin/python3")}),
		"marked":         obj(map[string]cty.Value{"out": out, "digest": cty.StringVal("sha256:ab").Mark("sensitive"), "blocked": cty.StringVal("")}),
		"number digest":  obj(map[string]cty.Value{"out": out, "digest": cty.NumberIntVal(1), "blocked": cty.StringVal("")}),
		"other names":    obj(map[string]cty.Value{"out": out, "digest": cty.StringVal("x"), "other": cty.StringVal("")}),
		"null":           cty.NullVal(cty.DynamicPseudoType),
		"dynamic":        cty.DynamicVal,
		"string":         cty.StringVal("x"),
	}
	vals := NewValues()
	for name, v := range cases {
		a := addr.Node{Kind: "exec", Name: "a"}
		vals.Set(a, v)
		got, ok := vals.NodeValue(a)
		if !ok || !got.RawEquals(v) {
			t.Errorf("%s: read back %#v (%v), want %#v", name, got, ok, v)
		}
	}
	// The common shapes are the ones kept compactly.
	vals = NewValues()
	for i, name := range []string{"known digest", "unknown digest", "blocked"} {
		vals.Set(addr.Node{Kind: "exec", Name: "c", Key: addr.Key{Set: true, IsInt: true, Int: i}}, cases[name])
	}
	if len(vals.plain) != 3 {
		t.Errorf("%d of 3 plain values kept compactly", len(vals.plain))
	}
	if _, ok := vals.NodeValue(addr.Node{Kind: "exec", Name: "b"}); ok {
		t.Error("a node never set has a value")
	}
}

// countingValues counts the reads of each node's value.
type countingValues struct {
	reads map[addr.Node]int
}

func (c *countingValues) NodeValue(a addr.Node) (cty.Value, bool) {
	c.reads[a]++
	if a.Name == "none" {
		return cty.NilVal, false
	}
	return cty.StringVal(a.String()), true
}

// TestOnceValuesReadsEachValueOnce: a decision reads each upstream's value
// from the plan's values once, however often it asks, with few upstreams
// or many, and sees what they hold.
func TestOnceValuesReadsEachValueOnce(t *testing.T) {
	for _, n := range []int{3, 40} {
		under := &countingValues{reads: map[addr.Node]int{}}
		once := &onceValues{vals: under}
		for range 3 {
			for i := range n {
				a := addr.Node{Kind: "exec", Name: "u", Key: addr.IntKey(i)}
				if v, ok := once.NodeValue(a); !ok || v.AsString() != a.String() {
					t.Fatalf("%d upstreams: %s reads %#v, %v", n, a, v, ok)
				}
			}
			if _, ok := once.NodeValue(addr.Node{Kind: "exec", Name: "none"}); ok {
				t.Fatalf("%d upstreams: a node without a value has one", n)
			}
		}
		for a, reads := range under.reads {
			if reads != 1 {
				t.Errorf("%d upstreams: %s read %d times", n, a, reads)
			}
		}
		if len(under.reads) != n+1 {
			t.Errorf("%d upstreams: %d nodes read", n, len(under.reads))
		}
	}
}
