package plan

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// reencoded is what unescapeHTML stands for: the JSON decoded and encoded
// again without HTML escapes.
func reencoded(t *testing.T, b []byte) string {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(out.String(), "\n")
}

// TestUnescapeHTMLIsTheRoundTrip is a property: for values as a node's
// attributes hold them — commands with redirects and pipes, backslashes
// before a u, control characters, U+2028, numbers, lists, maps — the key
// text unescapeHTML makes of cty's JSON is what a decode and an encode
// without HTML escapes make, byte for byte, so no key changes.
func TestUnescapeHTMLIsTheRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	pieces := []string{"cat a > b", "x < y", "a && b", "&amp;", `\u003c`, `\\u003e`, `\`, `\\`, "\\\\u0026",
		"u003c", "\u2028", "\x00", "\x1f", "\t\n\r", "ünï", "😀", `"q"`, "/", "<>&", "$KILN_OUT/out.txt", ""}
	str := func() cty.Value {
		var b strings.Builder
		for range r.IntN(5) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		return cty.StringVal(b.String())
	}
	var value func(depth int) cty.Value
	value = func(depth int) cty.Value {
		switch n := r.IntN(6); {
		case depth > 2 || n < 3:
			return str()
		case n == 3:
			return cty.NumberFloatVal(r.NormFloat64() * 1e6)
		case n == 4:
			l := []cty.Value{str()}
			for range r.IntN(3) {
				l = append(l, str())
			}
			return cty.ListVal(l)
		}
		m := map[string]cty.Value{}
		for range 1 + r.IntN(4) {
			m[str().AsString()] = value(depth + 1)
		}
		return cty.ObjectVal(m)
	}
	for i := range 5000 {
		v := value(0)
		b, err := ctyjson.Marshal(v, v.Type())
		if err != nil {
			t.Fatal(err)
		}
		if got, want := unescapeHTML(b), reencoded(t, b); got != want {
			t.Fatalf("case %d: %s\nunescapeHTML: %s\nround trip:   %s", i, b, got, want)
		}
	}
}
