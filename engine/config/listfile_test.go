package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

func TestParseListFile(t *testing.T) {
	tests := []struct {
		in   string
		want string // key=value pairs, or the error's text
	}{
		{"chr1\nchr2\n\n# comment\n  chr3  \n", "chr1=chr1 chr2=chr2 chr3=chr3"},
		{"42\n", "42=42"},
		{"", ""},
		{`["a", "b", 3]`, "3=3 a=a b=b"},
		{`[]`, ""},
		{`{"x": "1", "y": {"n": 2}}`, `x="1" y={"n":2}`},
		{"a\nb\na\n", `error: line 3: "a" appears twice`},
		{`["a", "a"]`, `error: "a" appears twice`},
		{`{"k": 1, "k": 2}`, `error: key "k" appears twice`},
		{`"one string"`, "error: holds a JSON string, not a list or a map"},
		{`[{"a": 1}]`, "error: an array entry is a JSON object"},
		{`[1, 2`, "error: not valid JSON"},
		{`{"a": 1} {"b": 2}`, "error: not valid JSON: more than one value"},
	}
	for _, tt := range tests {
		v, err := parseListFile([]byte(tt.in))
		var got string
		if err != nil {
			got = "error: " + err.Error()
			if !strings.HasPrefix(got, tt.want) {
				t.Errorf("parseListFile(%q) = %s, want %s", tt.in, got, tt.want)
			}
			continue
		}
		var pairs []string
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			if v.Type().IsMapType() {
				pairs = append(pairs, k.AsString()+"="+e.AsString())
				continue
			}
			b, err := ctyjson.Marshal(e, e.Type())
			if err != nil {
				t.Fatal(err)
			}
			pairs = append(pairs, k.AsString()+"="+string(b))
		}
		if diff := cmp.Diff(tt.want, strings.Join(pairs, " ")); diff != "" {
			t.Errorf("parseListFile(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}
