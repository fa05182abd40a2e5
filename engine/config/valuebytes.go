package config

import (
	"encoding/binary"
	"maps"
	"slices"

	"github.com/zclconf/go-cty/cty"
)

// AppendType and AppendValue write a type and a value in one unambiguous
// encoding, for digests that tell values apart (a node's identity, the
// memo's digest of a node's value): a type is a tag, then what it is made
// of; a value is a tag, then its content, every string and every list of
// parts preceded by its length, so no two different types or values are
// written alike. A value is written under its type, written first, which
// gives its parts' types; only a null is written with its own type, and an
// unknown value (rare enough) as cty prints it, refinements included.

// AppendType writes the type t to b.
func AppendType(b []byte, t cty.Type) []byte {
	switch {
	case t == cty.String:
		return append(b, 'S')
	case t == cty.Number:
		return append(b, 'N')
	case t == cty.Bool:
		return append(b, 'B')
	case t == cty.DynamicPseudoType:
		return append(b, 'D')
	case t.IsListType():
		return AppendType(append(b, 'L'), t.ElementType())
	case t.IsSetType():
		return AppendType(append(b, 'T'), t.ElementType())
	case t.IsMapType():
		return AppendType(append(b, 'M'), t.ElementType())
	case t.IsTupleType():
		elems := t.TupleElementTypes()
		b = binary.AppendUvarint(append(b, 'U'), uint64(len(elems)))
		for _, e := range elems {
			b = AppendType(b, e)
		}
		return b
	case t.IsObjectType():
		attrs := t.AttributeTypes()
		b = binary.AppendUvarint(append(b, 'O'), uint64(len(attrs)))
		for _, name := range slices.Sorted(maps.Keys(attrs)) {
			b = appendString(b, name)
			if t.AttributeOptional(name) {
				b = append(b, '?')
			}
			b = AppendType(b, attrs[name])
		}
		return b
	}
	return appendString(append(b, 'C'), t.GoString()) // a capsule type
}

// AppendValue writes v, of a type already written, to b; false when v is
// or holds a marked value.
func AppendValue(b []byte, v cty.Value) ([]byte, bool) {
	t := v.Type()
	switch {
	case v.IsMarked():
		return b, false
	case !v.IsKnown():
		return appendString(append(b, 'u'), v.GoString()), true
	case v.IsNull():
		return AppendType(append(b, 'n'), t), true
	case t == cty.String:
		return appendString(append(b, 's'), v.AsString()), true
	case t == cty.Number:
		return appendString(append(b, 'd'), v.AsBigFloat().Text('g', -1)), true
	case t == cty.Bool:
		if v.True() {
			return append(b, 't'), true
		}
		return append(b, 'f'), true
	case t.IsListType() || t.IsSetType() || t.IsTupleType() || t.IsMapType() || t.IsObjectType():
		// Sets, maps and objects list their elements in cty's order:
		// equal values alike.
		b = binary.AppendUvarint(append(b, 'e'), uint64(v.LengthInt()))
		keyed := t.IsMapType() || t.IsObjectType()
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			if keyed {
				b = appendString(b, k.AsString())
			}
			var ok bool
			if b, ok = AppendValue(b, e); !ok {
				return b, false
			}
		}
		return b, true
	}
	return appendString(append(b, 'c'), v.GoString()), true // a capsule
}

// appendString writes s to b, preceded by its length.
func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}
