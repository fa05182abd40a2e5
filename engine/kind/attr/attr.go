// Package attr reads the attributes of a node kind's decoded configuration
// (the object value Kind.Spec decodes) the same way for every kind. An
// absent or null attribute reads as the zero value and false; a value of
// another type, a null element of a list or map, or a value not known yet
// is an error that names the attribute, so a kind says what is wrong
// instead of panicking on a value the Spec let through.
//
// The Known functions are for plan time, when a configuration may still
// hold unknown values: they read what is known and pass over the rest.
package attr

import (
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/zclconf/go-cty/cty"
)

// ErrUnknown is wrapped by the error of a read whose value is not known yet
// (it comes from a node that has not been built): at plan time a kind
// defers what needs it.
var ErrUnknown = errors.New("not known yet")

// Get returns obj's attribute name: a null value when obj is null, not an
// object, or has no such attribute; an unknown one when obj is unknown.
// Marks are kept.
func Get(obj cty.Value, name string) cty.Value {
	switch {
	case obj.Type() == cty.NilType || obj.IsNull():
		return cty.NullVal(cty.DynamicPseudoType)
	case !obj.IsKnown():
		return cty.DynamicVal
	case !obj.Type().IsObjectType() || !obj.Type().HasAttribute(name):
		return cty.NullVal(cty.DynamicPseudoType)
	}
	return obj.GetAttr(name)
}

// value returns obj's attribute name, known and unmarked, when it is set:
// set is false when it is absent or null. It is an error when the value is
// not known yet, or of a type accept refuses (want says what it must be).
func value(obj cty.Value, name, want string, accept func(cty.Type) bool) (v cty.Value, set bool, err error) {
	v = Get(obj, name)
	if !v.IsWhollyKnown() {
		return cty.NilVal, false, fmt.Errorf("%s is %w: it must not depend on values only a later build produces", name, ErrUnknown)
	}
	if v, _ = v.UnmarkDeep(); v.IsNull() {
		return v, false, nil
	}
	if !accept(v.Type()) {
		return cty.NilVal, false, fmt.Errorf("%s must be %s, not %s", name, want, v.Type().FriendlyName())
	}
	return v, true, nil
}

// String reads a string attribute; set is false when it is absent or null.
func String(obj cty.Value, name string) (s string, set bool, err error) {
	v, set, err := value(obj, name, "a string", func(t cty.Type) bool { return t == cty.String })
	if !set {
		return "", false, err
	}
	return v.AsString(), true, nil
}

// Bool reads a boolean attribute; absent or null is false.
func Bool(obj cty.Value, name string) (bool, error) {
	v, set, err := value(obj, name, "true or false", func(t cty.Type) bool { return t == cty.Bool })
	return set && v.True(), err
}

// Int reads a whole number that fits in an int; absent or null is 0.
func Int(obj cty.Value, name string) (int, error) {
	v, set, err := value(obj, name, "a number", func(t cty.Type) bool { return t == cty.Number })
	if !set {
		return 0, err
	}
	bf := v.AsBigFloat()
	i, acc := bf.Int64()
	if acc != big.Exact || i < -1<<31 || i > 1<<31-1 {
		return 0, fmt.Errorf("%s must be a whole number, got %s", name, bf.Text('g', 10))
	}
	return int(i), nil
}

// Duration reads a positive duration written as Go writes one ("250ms",
// "10s", "2m"); absent, null or empty is def.
func Duration(obj cty.Value, name string, def time.Duration) (time.Duration, error) {
	s, _, err := String(obj, name)
	if err != nil || s == "" {
		return def, err
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s = %q is not a positive duration: write it like \"250ms\", \"10s\" or \"2m\"", name, s)
	}
	return d, nil
}

// Strings reads a list, set or tuple of strings; absent or null is nil.
func Strings(obj cty.Value, name string) ([]string, error) {
	list := func(t cty.Type) bool { return t.IsListType() || t.IsSetType() || t.IsTupleType() }
	v, set, err := value(obj, name, "a list of strings", list)
	if !set {
		return nil, err
	}
	var out []string
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		if e.IsNull() || e.Type() != cty.String {
			return nil, fmt.Errorf("%s must be a list of strings, not holding %s", name, elementName(e))
		}
		out = append(out, e.AsString())
	}
	return out, nil
}

// StringMap reads a map or object of strings; absent or null is nil.
func StringMap(obj cty.Value, name string) (map[string]string, error) {
	mapping := func(t cty.Type) bool { return t.IsMapType() || t.IsObjectType() }
	v, set, err := value(obj, name, "a map of strings", mapping)
	if !set {
		return nil, err
	}
	out := map[string]string{}
	for k, e := range v.AsValueMap() {
		if e.IsNull() || e.Type() != cty.String {
			return nil, fmt.Errorf("%s.%s must be a string, not %s: give it a value, or leave it out", name, k, elementName(e))
		}
		out[k] = e.AsString()
	}
	return out, nil
}

// Blocks returns the elements of a nested block list or set; absent or
// null is nil.
func Blocks(obj cty.Value, name string) []cty.Value {
	v, _ := Get(obj, name).Unmark()
	if v.IsNull() || !v.IsKnown() || !v.CanIterateElements() {
		return nil
	}
	var out []cty.Value
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		out = append(out, e)
	}
	return out
}

// KnownString returns a string attribute when it is set and known.
func KnownString(obj cty.Value, name string) (string, bool) {
	v := Get(obj, name)
	if !v.IsKnown() || v.IsNull() || v.Type() != cty.String {
		return "", false
	}
	v, _ = v.Unmark()
	return v.AsString(), true
}

// KnownStrings returns the known, non-null strings of a list attribute.
func KnownStrings(obj cty.Value, name string) []string {
	var out []string
	for _, e := range Blocks(obj, name) {
		if e.IsKnown() && !e.IsNull() && e.Type() == cty.String {
			e, _ = e.Unmark()
			out = append(out, e.AsString())
		}
	}
	return out
}

func elementName(e cty.Value) string {
	if e.IsNull() {
		return "null"
	}
	return e.Type().FriendlyName()
}
