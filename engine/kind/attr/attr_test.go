package attr

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/zclconf/go-cty/cty"
)

var obj = cty.ObjectVal(map[string]cty.Value{
	"name":     cty.StringVal("verl"),
	"none":     cty.NullVal(cty.String),
	"unknown":  cty.UnknownVal(cty.String),
	"number":   cty.NumberIntVal(8080),
	"half":     cty.NumberFloatVal(80.5),
	"flag":     cty.True,
	"list":     cty.ListVal([]cty.Value{cty.StringVal("a"), cty.StringVal("b")}),
	"holey":    cty.TupleVal([]cty.Value{cty.StringVal("a"), cty.NullVal(cty.String)}),
	"partly":   cty.TupleVal([]cty.Value{cty.StringVal("a"), cty.UnknownVal(cty.String)}),
	"env":      cty.MapVal(map[string]cty.Value{"A": cty.StringVal("1")}),
	"holeyenv": cty.ObjectVal(map[string]cty.Value{"A": cty.NullVal(cty.String)}),
	"timeout":  cty.StringVal("10s"),
	"never":    cty.StringVal("-1s"),
	"secret":   cty.StringVal("s3").Mark("sensitive"),
})

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestString(t *testing.T) {
	for _, tc := range []struct {
		name, want, err string
		set             bool
	}{
		{"name", "verl", "", true},
		{"absent", "", "", false},
		{"none", "", "", false},
		{"secret", "s3", "", true},
		{"number", "", "number must be a string, not number", false},
		{"unknown", "", "unknown is not known yet", false},
	} {
		got, set, err := String(obj, tc.name)
		if got != tc.want || set != tc.set || !strings.Contains(errText(err), tc.err) || (tc.err == "") != (err == nil) {
			t.Errorf("String(%s) = %q, %v, %v; want %q, %v, %q", tc.name, got, set, err, tc.want, tc.set, tc.err)
		}
	}
	if got, _, err := String(cty.NullVal(cty.DynamicPseudoType), "name"); got != "" || err != nil {
		t.Errorf("String of a null object = %q, %v", got, err)
	}
}

func TestNumbersBoolsDurations(t *testing.T) {
	if n, err := Int(obj, "number"); n != 8080 || err != nil {
		t.Errorf("Int(number) = %d, %v", n, err)
	}
	if _, err := Int(obj, "half"); !strings.Contains(errText(err), "half must be a whole number, got 80.5") {
		t.Errorf("Int(half): %v", err)
	}
	if b, err := Bool(obj, "flag"); !b || err != nil {
		t.Errorf("Bool(flag) = %v, %v", b, err)
	}
	if b, err := Bool(obj, "absent"); b || err != nil {
		t.Errorf("Bool(absent) = %v, %v", b, err)
	}
	if d, err := Duration(obj, "timeout", time.Minute); d != 10*time.Second || err != nil {
		t.Errorf("Duration(timeout) = %v, %v", d, err)
	}
	if d, err := Duration(obj, "absent", time.Minute); d != time.Minute || err != nil {
		t.Errorf("Duration(absent) = %v, %v, want the default", d, err)
	}
	if _, err := Duration(obj, "never", time.Minute); !strings.Contains(errText(err), "not a positive duration") {
		t.Errorf("Duration(never): %v", err)
	}
}

func TestListsAndMaps(t *testing.T) {
	if l, err := Strings(obj, "list"); err != nil || !cmp.Equal(l, []string{"a", "b"}) {
		t.Errorf("Strings(list) = %v, %v", l, err)
	}
	if l, err := Strings(obj, "absent"); l != nil || err != nil {
		t.Errorf("Strings(absent) = %v, %v", l, err)
	}
	for name, want := range map[string]string{"holey": "holey must be a list of strings, not holding null", "partly": "partly is not known yet", "env": "env must be a list of strings, not map of string", "name": "name must be a list of strings, not string"} {
		if _, err := Strings(obj, name); !strings.Contains(errText(err), want) {
			t.Errorf("Strings(%s): %v, want %q", name, err, want)
		}
	}
	if m, err := StringMap(obj, "env"); err != nil || !cmp.Equal(m, map[string]string{"A": "1"}) {
		t.Errorf("StringMap(env) = %v, %v", m, err)
	}
	if _, err := StringMap(obj, "holeyenv"); !strings.Contains(errText(err), "holeyenv.A must be a string, not null") {
		t.Errorf("StringMap(holeyenv): %v", err)
	}
	if _, err := StringMap(obj, "list"); !strings.Contains(errText(err), "list must be a map of strings") {
		t.Errorf("StringMap(list): %v", err)
	}
}

func TestKnown(t *testing.T) {
	if s, ok := KnownString(obj, "name"); s != "verl" || !ok {
		t.Errorf("KnownString(name) = %q, %v", s, ok)
	}
	if _, ok := KnownString(obj, "unknown"); ok {
		t.Error("KnownString of an unknown value said it is known")
	}
	if s, ok := KnownString(cty.UnknownVal(cty.DynamicPseudoType), "name"); s != "" || ok {
		t.Error("KnownString of an unknown object said it is known")
	}
	marked := cty.ObjectVal(map[string]cty.Value{"l": cty.ListVal([]cty.Value{cty.StringVal("x").Mark("m")}).Mark("m")})
	if got := KnownStrings(marked, "l"); !cmp.Equal(got, []string{"x"}) {
		t.Errorf("KnownStrings of a marked list = %v", got)
	}
	if got := KnownStrings(obj, "partly"); !cmp.Equal(got, []string{"a"}) {
		t.Errorf("KnownStrings(partly) = %v, want the known element", got)
	}
}

// A Reader keeps the first error, named after its prefix, and reads zero
// values after it.
func TestReaderKeepsTheFirstError(t *testing.T) {
	r := ReadIn(obj, "probe.")
	if got := r.String("name"); got != "verl" {
		t.Errorf("String(name) = %q", got)
	}
	if got := r.Int("half"); got != 0 {
		t.Errorf("Int(half) = %d", got)
	}
	if got := r.String("name"); got != "" {
		t.Errorf("String(name) after an error = %q, want the zero value", got)
	}
	r.Strings("holey")
	if err := r.Err(); errText(err) != "probe.half must be a whole number, got 80.5" {
		t.Errorf("Err = %v, want the first error with its prefix", err)
	}
	ok := Read(obj)
	ok.Bool("flag")
	ok.StringMap("env")
	ok.Duration("timeout", 0)
	if err := ok.Err(); err != nil {
		t.Errorf("Err after good reads = %v", err)
	}
}

// Get of an unknown object is unknown, of a null one or a missing
// attribute null.
func TestGet(t *testing.T) {
	if v := Get(cty.UnknownVal(obj.Type()), "name"); v.IsKnown() {
		t.Errorf("Get of an unknown object = %#v, want unknown", v)
	}
	for _, o := range []cty.Value{cty.NullVal(obj.Type()), cty.NilVal, cty.StringVal("not an object"), obj} {
		if v := Get(o, "absent"); !v.IsNull() {
			t.Errorf("Get(%#v, absent) = %#v, want null", o, v)
		}
	}
	if _, _, err := String(cty.UnknownVal(obj.Type()), "name"); !errors.Is(err, ErrUnknown) {
		t.Errorf("String of an unknown object: %v, want ErrUnknown", err)
	}
}

// ListCommand: only a known list command without sensitive values names a
// program to resolve; the configuration comes back unmarked.
func TestListCommand(t *testing.T) {
	obj := func(cmd cty.Value) cty.Value { return cty.ObjectVal(map[string]cty.Value{"command": cmd}) }
	list := cty.ListVal([]cty.Value{cty.StringVal("python3"), cty.StringVal("train.py")})
	secret := cty.ListVal([]cty.Value{cty.StringVal("python3"), cty.StringVal("token").Mark("sensitive")})
	for _, c := range []struct {
		name string
		cfg  cty.Value
		want bool
	}{
		{"list", obj(list), true},
		{"string", obj(cty.StringVal("python3 train.py")), false},
		{"sensitive", obj(secret), false},
		{"unknown", obj(cty.UnknownVal(cty.List(cty.String))), false},
		{"null command", obj(cty.NullVal(cty.List(cty.String))), false},
		{"no command", cty.EmptyObjectVal, false},
		{"null", cty.NullVal(cty.EmptyObject), false},
	} {
		got, ok := ListCommand(c.cfg)
		if ok != c.want {
			t.Errorf("%s: ok %v, want %v", c.name, ok, c.want)
		}
		if ok && (got.ContainsMarked() || !got.GetAttr("command").Equals(list).True()) {
			t.Errorf("%s: got %#v, want the configuration unmarked", c.name, got)
		}
	}
	if _, ok := ListCommand(obj(list).Mark("sensitive")); ok {
		t.Errorf("a marked configuration: ok, want false")
	}
}
