package memo

import (
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// TestExportsRoundTrip: a kind's exports come back from the memo as they
// were, a value not known until the node runs included; a marked or partly
// known one is not kept.
func TestExportsRoundTrip(t *testing.T) {
	ex := map[string]cty.Value{
		"path":     cty.StringVal("/kiln/out/x/data"),
		"checksum": cty.UnknownVal(cty.String),
		"env":      cty.MapVal(map[string]cty.Value{"A": cty.StringVal("1"), "B": cty.StringVal("2")}),
		"version":  cty.NumberIntVal(8),
	}
	kept, ok := encodeExports(ex)
	if !ok {
		t.Fatal("the exports were not kept")
	}
	got, err := decodeExports(kept)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(ex) {
		t.Fatalf("got %d exports, want %d", len(got), len(ex))
	}
	for name, v := range ex {
		if !got[name].RawEquals(v) {
			t.Errorf("export %s: got %#v, want %#v", name, got[name], v)
		}
	}
	for name, v := range map[string]cty.Value{
		"marked":       cty.StringVal("secret").Mark("sensitive"),
		"partly known": cty.ListVal([]cty.Value{cty.StringVal("a"), cty.UnknownVal(cty.String)}),
	} {
		if _, ok := encodeExports(map[string]cty.Value{"x": v}); ok {
			t.Errorf("a %s export was kept", name)
		}
	}
}

// TestValueDigestTellsValuesApart: equal values digest alike, whatever the
// order their attributes were given in; a digest not known yet, another
// digest, another blocked reason or a mark all change it.
func TestValueDigestTellsValuesApart(t *testing.T) {
	value := func(digest cty.Value, blocked string) cty.Value {
		return cty.ObjectVal(map[string]cty.Value{"out": cty.StringVal("/kiln/out/a"), "digest": digest, "blocked": cty.StringVal(blocked)})
	}
	base := valueDigest(value(cty.StringVal("d1"), ""))
	if again := valueDigest(value(cty.StringVal("d1"), "")); again != base || base == "" {
		t.Fatalf("the same value digests to %q and %q", base, again)
	}
	for name, v := range map[string]cty.Value{
		"unknown digest": value(cty.UnknownVal(cty.String), ""),
		"other digest":   value(cty.StringVal("d2"), ""),
		"blocked":        value(cty.StringVal("d1"), "needs 8 NPUs"),
	} {
		if valueDigest(v) == base {
			t.Errorf("a value with another %s digests alike", name)
		}
	}
	if valueDigest(value(cty.StringVal("d1"), "").Mark("sensitive")) != "" {
		t.Error("a marked value has a digest: it prints without what the mark says")
	}
}
