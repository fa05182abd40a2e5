package memo

import (
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// TestValueDigestIsOneToOne: values that differ in type or content, however
// slightly (a string that a length prefix must tell from its neighbour, a
// null of another type, an empty list of another element type, an object
// from a map, a null of a type with an optional attribute), digest apart; values cty holds equal
// digest alike, and so do values written at different precision that are
// the same number. A value that holds a marked one has none.
func TestValueDigestIsOneToOne(t *testing.T) {
	str := func(ss ...string) []cty.Value {
		var out []cty.Value
		for _, s := range ss {
			out = append(out, cty.StringVal(s))
		}
		return out
	}
	distinct := map[string]cty.Value{
		"string 1":          cty.StringVal("1"),
		"number 1":          cty.NumberIntVal(1),
		"number 1.5":        cty.NumberFloatVal(1.5),
		"true":              cty.True,
		"false":             cty.False,
		"null string":       cty.NullVal(cty.String),
		"null number":       cty.NullVal(cty.Number),
		"null dynamic":      cty.NullVal(cty.DynamicPseudoType),
		"unknown string":    cty.UnknownVal(cty.String),
		"unknown not null":  cty.UnknownVal(cty.String).RefineNotNull(),
		"dynamic":           cty.DynamicVal,
		"list ab c":         cty.ListVal(str("ab", "c")),
		"list a bc":         cty.ListVal(str("a", "bc")),
		"list abc":          cty.ListVal(str("abc")),
		"set ab c":          cty.SetVal(str("ab", "c")),
		"tuple ab c":        cty.TupleVal(str("ab", "c")),
		"empty list string": cty.ListValEmpty(cty.String),
		"empty list number": cty.ListValEmpty(cty.Number),
		"empty set string":  cty.SetValEmpty(cty.String),
		"empty tuple":       cty.EmptyTupleVal,
		"empty object":      cty.EmptyObjectVal,
		"empty map":         cty.MapValEmpty(cty.String),
		"map a=b":           cty.MapVal(map[string]cty.Value{"a": cty.StringVal("b")}),
		"object a=b":        cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("b")}),
		"object ab=''":      cty.ObjectVal(map[string]cty.Value{"ab": cty.StringVal("")}),
		"object a=null":     cty.ObjectVal(map[string]cty.Value{"a": cty.NullVal(cty.String)}),
		"object a=[b]":      cty.ObjectVal(map[string]cty.Value{"a": cty.ListVal(str("b"))}),
		"object a, b":       cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("b"), "b": cty.StringVal("")}),
		"list of object":    cty.ListVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("b")})}),
	}
	// A type constraint with an optional attribute is another type, which
	// only a null or an unknown value carries.
	distinct["null optional object"] = cty.NullVal(cty.ObjectWithOptionalAttrs(map[string]cty.Type{"a": cty.String}, []string{"a"}))
	distinct["null object"] = cty.NullVal(cty.Object(map[string]cty.Type{"a": cty.String}))
	seen := map[string]string{}
	for name, v := range distinct {
		d := valueDigest(v)
		if d == "" {
			t.Errorf("%s: no digest", name)
			continue
		}
		if other, dup := seen[d]; dup {
			t.Errorf("%s and %s digest alike", name, other)
		}
		seen[d] = name
	}
	nested := cty.ObjectVal(map[string]cty.Value{"a": cty.ListVal([]cty.Value{cty.StringVal("x").Mark("sensitive")})})
	if d := valueDigest(nested); d != "" {
		t.Errorf("a value holding a marked one has a digest, %s: the mark is not written out", d)
	}
	for name, pair := range map[string][2]cty.Value{
		"a set in another order": {cty.SetVal(str("b", "a")), cty.SetVal(str("a", "b"))},
		"a map in another order": {
			cty.MapVal(map[string]cty.Value{"x": cty.StringVal("1"), "y": cty.StringVal("2")}),
			cty.MapVal(map[string]cty.Value{"y": cty.StringVal("2"), "x": cty.StringVal("1")}),
		},
		"a number as an integer and a float": {cty.NumberIntVal(3), cty.NumberFloatVal(3)},
		"a number parsed":                    {cty.MustParseNumberVal("0.1"), cty.MustParseNumberVal("0.10")},
	} {
		if a, b := valueDigest(pair[0]), valueDigest(pair[1]); a != b {
			t.Errorf("%s: %s and %s", name, a, b)
		}
	}
}
