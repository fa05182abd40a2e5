package memo

import (
	"sync"

	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/zclconf/go-cty/cty"
)

// valueDigest identifies a node's value as its dependents read it, an
// unknown digest (a node that will run) included: the SHA-256 of the
// value's type and the value written out in one unambiguous encoding
// (config.AppendValue). "" for a marked value: a mark is not written out, so a
// marked value is never the same as a recorded one.
func valueDigest(v cty.Value) string {
	b := valueBuffers.Get().(*[]byte)
	defer valueBuffers.Put(b)
	var ok bool
	*b, ok = config.AppendValue(config.AppendType((*b)[:0], v.Type()), v)
	if !ok {
		return ""
	}
	return hash.Bytes(*b).String()
}

// valueBuffers are the buffers valueDigest writes values into.
var valueBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}
