package config

import (
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// Conversions of large uniform collections.
//
// A tuple converts to a list or set of any element type, and an object to a
// map of any, by finding the one type all elements convert to. cty finds it
// by comparing the type of every element with that of every other
// (convert.unify), which is quadratic in the elements: toset of 8,000
// strings took a second, and of 250,000 would compare 31 billion pairs. The
// elements a pipeline makes in one expression nearly always share one type,
// and then that type is the answer. uniformly gives a function the
// collection made directly from such a tuple or object, which is the value
// cty's conversion returns; any other argument is converted as before.

// toCollection is tolist, toset or tomap: the conversion to t, a list, set
// or map of any type.
func toCollection(t cty.Type) function.Function { return uniformly(stdlib.MakeToFunc(t), t) }

// uniformly wraps f so that each argument it takes as a list, set or map
// of any type arrives already converted when its elements share one type.
// into is the type f converts its one argument to (tolist, toset, tomap),
// or cty.NilType to read each argument's type from f's parameters.
func uniformly(f function.Function, into cty.Type) function.Function {
	params, vp := f.Params(), f.VarParam()
	want := func(i int) cty.Type {
		switch {
		case into != cty.NilType:
			return into
		case i < len(params):
			return params[i].Type
		case vp != nil:
			return vp.Type
		}
		return cty.NilType
	}
	// Every argument passes through as given; f's own parameters then
	// decide what an unknown, null or marked one does.
	pass := func(p function.Parameter) function.Parameter {
		return function.Parameter{Name: p.Name, Description: p.Description, Type: cty.DynamicPseudoType,
			AllowNull: true, AllowUnknown: true, AllowDynamicType: true, AllowMarked: true}
	}
	spec := &function.Spec{Description: f.Description()}
	for _, p := range params {
		spec.Params = append(spec.Params, pass(p))
	}
	if vp != nil {
		v := pass(*vp)
		spec.VarParam = &v
	}
	// The language converts each argument to its parameter's type before
	// the call; f's are no longer those, so what is not uniform is
	// converted here as the language would have. A conversion function's
	// answer for a uniform argument is the collection made of it; any
	// other argument it converts itself.
	convertRest := into == cty.NilType
	// prepare is the answer of a conversion function for a uniform
	// argument (direct), or the arguments to call f with.
	prepare := func(args []cty.Value) (direct cty.Value, done bool, _ []cty.Value, _ error) {
		if convertRest {
			args, err := uniformArgs(args, want)
			return cty.NilVal, false, args, err
		}
		// As the conversion functions do, marks inside the value move to
		// the whole.
		a, marks := args[0], cty.ValueMarks(nil)
		if a.ContainsMarked() {
			a, marks = a.UnmarkDeep()
		}
		if u, ok := uniformCollection(a, into); ok {
			return u.WithMarks(marks), true, nil, nil
		}
		return cty.NilVal, false, args, nil
	}
	spec.Type = func(args []cty.Value) (cty.Type, error) {
		u, done, args, err := prepare(args)
		switch {
		case err != nil:
			return cty.NilType, err
		case done:
			return u.Type(), nil
		}
		return f.ReturnTypeForValues(args)
	}
	spec.Impl = func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		u, done, args, err := prepare(args)
		switch {
		case err != nil:
			return cty.NilVal, err
		case done:
			return u, nil
		}
		return f.Call(args)
	}
	return function.New(spec)
}

// uniformArgs is args with each one that want(i) takes as a collection of
// any type made that collection: directly when it is uniform, else by
// cty's conversion. args itself is not changed.
func uniformArgs(args []cty.Value, want func(int) cty.Type) ([]cty.Value, error) {
	out, copied := args, false
	for i, a := range args {
		w := want(i)
		if !isAnyCollection(w) {
			continue
		}
		c, ok := uniformCollection(a, w)
		if !ok {
			var err error
			if c, err = convert.Convert(a, w); err != nil {
				return nil, function.NewArgError(i, err)
			}
		}
		if !copied {
			out, copied = append([]cty.Value(nil), args...), true
		}
		out[i] = c
	}
	return out, nil
}

// isAnyCollection is whether t is a list, set or map of any type.
func isAnyCollection(t cty.Type) bool {
	return (t.IsListType() || t.IsSetType() || t.IsMapType()) && t.ElementType() == cty.DynamicPseudoType
}

// uniformCollection is v as a list, set or map (the kind of want, whose
// element type is any) when v is a known tuple or object of at least two
// elements of one known type, none of them null.
func uniformCollection(v cty.Value, want cty.Type) (cty.Value, bool) {
	if !isAnyCollection(want) {
		return cty.NilVal, false
	}
	isSet, isMap := want.IsSetType(), want.IsMapType()
	v, marks := v.Unmark()
	t := v.Type()
	if !v.IsKnown() || v.IsNull() || (isMap && !t.IsObjectType()) || (!isMap && !t.IsTupleType()) || v.LengthInt() < 2 {
		return cty.NilVal, false
	}
	var elems []cty.Value
	var byName map[string]cty.Value
	if isMap {
		byName = v.AsValueMap()
		for _, e := range byName {
			elems = append(elems, e)
		}
	} else {
		elems = v.AsValueSlice()
	}
	elem := elems[0].Type()
	for _, e := range elems {
		if t := e.Type(); e.IsNull() || t == cty.DynamicPseudoType || !t.Equals(elem) {
			return cty.NilVal, false
		}
	}
	switch {
	case isMap:
		return cty.MapVal(byName).WithMarks(marks), true
	case isSet:
		return cty.SetVal(elems).WithMarks(marks), true
	}
	return cty.ListVal(elems).WithMarks(marks), true
}
