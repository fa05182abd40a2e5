package config

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/kilnbuild/kiln/providers"
	"github.com/zclconf/go-cty/cty"
)

// TestDecodeAttrsIsHcldecs holds kindSpec.decode to hcldec.Decode for
// every kind's spec, on bodies that set each attribute to an unknown, to
// null, to a value of the wrong type and to nothing, beside meta-arguments
// that Block.Body hides, and on bodies hcldec must judge itself (an
// unsupported argument, a block, a required argument missing): the same
// value and the same diagnostics, summary, detail and place.
func TestDecodeAttrsIsHcldecs(t *testing.T) {
	ctx := &hcl.EvalContext{Variables: map[string]cty.Value{
		"var": cty.ObjectVal(map[string]cty.Value{"unknown": cty.DynamicVal, "s": cty.StringVal("x")}),
	}}
	fast := 0
	for _, k := range providers.All() {
		spec := k.Spec()
		s := kindSpec{spec: spec, decoding: attrDecoding(spec)}
		if s.decoding == nil {
			t.Logf("%s: decoded by hcldec (its spec is not attributes alone)", k.Name())
			continue
		}
		fast++
		var all []string
		for name := range spec {
			all = append(all, name)
		}
		sort.Strings(all)
		bodies := []string{
			"inputs = [\"a\"]\ndepends_on = []\n" + setAll(all, "var.unknown"),
			setAll(all, "null"),
			setAll(all, "{ no = [1] }"),
			setAll(all, "\"${var.s}\""),
			setAll(all, "var.missing"),
			"inputs = [\"a\"]\n",
			"",
			setAll(all, "var.s") + "unsupported = 1\n",
			setAll(all, "var.s") + "nested {\n}\n",
		}
		for _, name := range all {
			bodies = append(bodies, setAll(all, "var.unknown")+name+"_typo = 1\n", setAll(except(all, name), "var.s"))
		}
		for i, src := range bodies {
			body := hiddenMeta(t, src)
			want, wantDiags := hcldec.Decode(body, spec, ctx)
			got, gotDiags := s.decode(body, ctx)
			where := fmt.Sprintf("%s body %d:\n%s", k.Name(), i, src)
			if !got.RawEquals(want) {
				t.Errorf("%s\ndecoded to %#v, hcldec gives %#v", where, got, want)
			}
			if g, w := diagText(gotDiags), diagText(wantDiags); g != w {
				t.Errorf("%s\ndiagnostics:\n%s\nhcldec's:\n%s", where, g, w)
			}
		}
	}
	if fast == 0 {
		t.Fatal("no kind's spec is decoded by decodeAttrs: exec's is attributes alone")
	}
}

// hiddenMeta parses src as the body of an exec block and hides its
// meta-arguments, as Block.Body does.
func hiddenMeta(t *testing.T, src string) hcl.Body {
	t.Helper()
	f, diags := hclsyntax.ParseConfig([]byte(src), "p.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("%s: %s", src, diags)
	}
	_, remain, _ := f.Body.PartialContent(metaSchema())
	return remain
}

func setAll(names []string, value string) string {
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "%s = %s\n", n, value)
	}
	return b.String()
}

func except(names []string, name string) []string {
	var out []string
	for _, n := range names {
		if n != name {
			out = append(out, n)
		}
	}
	return out
}

// diagText is diags sorted, each with its severity, summary, detail and
// ranges (hcldec decodes a spec's attributes in map order).
func diagText(diags hcl.Diagnostics) string {
	var lines []string
	for _, d := range diags {
		lines = append(lines, fmt.Sprintf("%d %s: %s @ %v ctx %v", d.Severity, d.Summary, d.Detail, d.Subject, d.Context))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}
