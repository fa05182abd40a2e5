// Package schema describes the blocks of kiln's language — each node kind,
// the meta-arguments, variable, output and the other top-level blocks — as
// data: every attribute with its type, whether it is required, its default,
// whether and how it enters a node's key, what it means and an example.
//
// A Block is the one source for two readers. The loader decodes with the
// hcldec spec or the hcl body schema a Block derives (Spec, BodySchema), and
// kiln help and docs/language.md are rendered from the same Block, so the
// reference cannot list an attribute the loader refuses or miss one it
// accepts. A default the loader applies is a literal here (Spec turns it
// into an hcldec.DefaultSpec); a default applied later in Go code is only
// described (DefaultDoc), next to the constant that holds it.
//
// The package holds only types and conversions; it has no state.
package schema
