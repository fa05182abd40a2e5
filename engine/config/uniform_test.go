package config

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// The wrapped functions return what cty's own return, value, type, marks
// and errors alike, for uniform and mixed arguments.
func TestUniformFunctionsAgreeWithCty(t *testing.T) {
	obj := func(n int) cty.Value {
		return cty.ObjectVal(map[string]cty.Value{"id": cty.NumberIntVal(int64(n)), "name": cty.StringVal(fmt.Sprint("s", n))})
	}
	args := map[string]cty.Value{
		"strings":          cty.TupleVal([]cty.Value{cty.StringVal("b"), cty.StringVal("a"), cty.StringVal("b")}),
		"numbers":          cty.TupleVal([]cty.Value{cty.NumberIntVal(3), cty.NumberIntVal(1)}),
		"objects":          cty.TupleVal([]cty.Value{obj(1), obj(2), obj(1)}),
		"mixed":            cty.TupleVal([]cty.Value{cty.StringVal("a"), cty.NumberIntVal(1), cty.True}),
		"mixed objects":    cty.TupleVal([]cty.Value{obj(1), cty.ObjectVal(map[string]cty.Value{"id": cty.NumberIntVal(2)})}),
		"null element":     cty.TupleVal([]cty.Value{cty.StringVal("a"), cty.NullVal(cty.String)}),
		"unknown element":  cty.TupleVal([]cty.Value{cty.StringVal("a"), cty.UnknownVal(cty.String)}),
		"dynamic element":  cty.TupleVal([]cty.Value{cty.StringVal("a"), cty.DynamicVal}),
		"marked element":   cty.TupleVal([]cty.Value{cty.StringVal("a"), cty.StringVal("s").Mark(SensitiveMark)}),
		"marked tuple":     cty.TupleVal([]cty.Value{cty.StringVal("a"), cty.StringVal("b")}).Mark(SensitiveMark),
		"one element":      cty.TupleVal([]cty.Value{cty.StringVal("a")}),
		"empty tuple":      cty.EmptyTupleVal,
		"unknown tuple":    cty.UnknownVal(cty.Tuple([]cty.Type{cty.String, cty.String})),
		"null tuple":       cty.NullVal(cty.Tuple([]cty.Type{cty.String, cty.String})),
		"object":           cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("x"), "b": cty.StringVal("y")}),
		"mixed object":     cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("x"), "b": cty.NumberIntVal(1)}),
		"marked object":    cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("x"), "b": cty.StringVal("y").Mark(SensitiveMark)}),
		"list":             cty.ListVal([]cty.Value{cty.StringVal("a"), cty.StringVal("b")}),
		"set":              cty.SetVal([]cty.Value{cty.StringVal("a"), cty.StringVal("b")}),
		"string":           cty.StringVal("a"),
		"dynamic":          cty.DynamicVal,
		"nested tuples":    cty.TupleVal([]cty.Value{cty.TupleVal([]cty.Value{cty.StringVal("a")}), cty.TupleVal([]cty.Value{cty.StringVal("b")})}),
		"tuples of uneven": cty.TupleVal([]cty.Value{cty.TupleVal([]cty.Value{cty.StringVal("a")}), cty.EmptyTupleVal}),
	}
	ctys := map[string]function.Function{
		"tolist": stdlib.MakeToFunc(cty.List(cty.DynamicPseudoType)), "toset": stdlib.MakeToFunc(cty.Set(cty.DynamicPseudoType)),
		"tomap": stdlib.MakeToFunc(cty.Map(cty.DynamicPseudoType)), "distinct": stdlib.DistinctFunc, "chunklist": stdlib.ChunklistFunc,
		"setunion": stdlib.SetUnionFunc, "setintersection": stdlib.SetIntersectionFunc, "setsubtract": stdlib.SetSubtractFunc,
	}
	calls := []string{"tolist(v)", "toset(v)", "tomap(v)", "distinct(v)", "chunklist(v, 2)", "setunion(v, other)",
		"setunion(other, v, v)", "setintersection(v, other)", "setsubtract(v, other)", "setsubtract(other, v)"}
	eval := func(call string, fs map[string]function.Function, v cty.Value) (cty.Value, string) {
		e, diags := hclsyntax.ParseExpression([]byte(call), "test.hcl", hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		other := cty.TupleVal([]cty.Value{cty.StringVal("a"), cty.StringVal("z")})
		got, diags := e.Value(&hcl.EvalContext{Functions: fs, Variables: map[string]cty.Value{"v": v, "other": other}})
		// The language reports each argument it cannot convert; a wrapped
		// function converts them itself and reports the first.
		if len(diags) > 0 {
			return got, diags[0].Summary + ": " + diags[0].Detail
		}
		return got, ""
	}
	for _, call := range calls {
		for what, v := range args {
			want, wantDiags := eval(call, ctys, v)
			got, gotDiags := eval(call, pureFunctions, v)
			if gotDiags != wantDiags {
				t.Errorf("%s with v %s: %q, cty's %q", call, what, gotDiags, wantDiags)
				continue
			}
			if !got.RawEquals(want) {
				t.Errorf("%s with v %s = %#v, cty's %#v", call, what, got, want)
			}
		}
	}
}

// A uniform tuple or object becomes its collection directly, at any
// size; a mixed one is left to cty.
func TestUniformCollectionTakesTheDirectWay(t *testing.T) {
	const n = 200_000
	elems := make([]cty.Value, n)
	for i := range elems {
		elems[i] = cty.StringVal(fmt.Sprint("i", i))
	}
	for _, want := range []cty.Type{cty.List(cty.DynamicPseudoType), cty.Set(cty.DynamicPseudoType)} {
		v, ok := uniformCollection(cty.TupleVal(elems), want)
		if !ok {
			t.Fatalf("a tuple of %d strings is not made a %s directly", n, want.FriendlyName())
		}
		if v.LengthInt() != n || v.Type().ElementType() != cty.String {
			t.Errorf("made a %s of %d elements, want %d strings", v.Type().FriendlyName(), v.LengthInt(), n)
		}
	}
	byName := make(map[string]cty.Value, n)
	for i, e := range elems {
		byName[fmt.Sprint("k", i)] = e
	}
	if v, ok := uniformCollection(cty.ObjectVal(byName), cty.Map(cty.DynamicPseudoType)); !ok || v.LengthInt() != n {
		t.Errorf("an object of %d strings is not made a map of them directly", n)
	}
	mixed := append(append([]cty.Value(nil), elems[:10]...), cty.NumberIntVal(1))
	if _, ok := uniformCollection(cty.TupleVal(mixed), cty.Set(cty.DynamicPseudoType)); ok {
		t.Error("a tuple of strings and a number is made a set directly; cty must unify it")
	}
	if _, ok := uniformCollection(cty.TupleVal(elems[:10]), cty.List(cty.String)); ok {
		t.Error("a conversion to list(string) is taken over; only collections of any type are")
	}
}

// The pipeline a million-instance benchmark writes: for_each over toset of
// 250,000 ids made by two nested for expressions. Before toset took the
// direct way, its conversion alone compared 31 billion pairs of types.
func TestForEachOverALargeToset(t *testing.T) {
	p, diags := load(t, `
locals {
  ids = toset(flatten([for a in range(500) : [for b in range(500) : "i${a}_${b}"]]))
}
exec "s0" {
  for_each = local.ids
  command  = "echo ${each.key} > $KILN_OUT/x"
}
`, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if len(p.Nodes) != 250_000 {
		t.Fatalf("%d instances, want 250,000", len(p.Nodes))
	}
}

// A local that fails is reported once, not once for each block whose
// for_each reads it.
func TestForEachLocalErrorOnce(t *testing.T) {
	_, diags := load(t, `
locals {
  ids = toset([for i in range(2000) : tostring(i)])
}
exec "a" {
  for_each = local.ids
  command  = "echo a"
}
exec "b" {
  for_each = local.ids
  command  = "echo b"
}
`, Options{})
	if len(diags) != 1 || !strings.Contains(diags[0].Detail, "more than 1024 values") {
		t.Fatalf("want the local's one error, got %d: %v", len(diags), diags)
	}
}
