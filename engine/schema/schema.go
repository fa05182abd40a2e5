package schema

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/zclconf/go-cty/cty"
)

// Block is one block type: a node kind, a top-level block such as variable,
// or a nested block such as a service's ready.
type Block struct {
	Name    string   // the block type: "exec", "variable", "ready"
	Labels  []string // label names: ["name"] for a node, none for locals
	Summary string   // one line: what the block declares
	Doc     string   // more, in short paragraphs separated by blank lines
	Example string   // a complete block, in HCL
	// Repeated, for a nested block, says it may appear any number of times
	// (install { } install { }); otherwise at most once.
	Repeated bool
	// Required, for a nested block, says it must appear.
	Required bool
	// FreeForm says the block takes attributes of any name (locals).
	FreeForm bool
	Attrs    []Attr
	Blocks   []*Block
	// Exports are the attributes other nodes may reference besides out and
	// digest (node kinds only).
	Exports []Export
}

// Attr is one attribute of a block.
type Attr struct {
	Name string
	Type cty.Type
	// TypeDoc names the accepted type where Type cannot
	// (cty.DynamicPseudoType): "string or list(string)".
	TypeDoc  string
	Required bool
	// Default is the value the loader gives the attribute when it is not
	// set; cty.NilVal when it has none.
	Default cty.Value
	// DefaultDoc says what leaving the attribute out means when that is not
	// a literal value ("the pipeline folder", "60s, applied by the kind").
	DefaultDoc string
	Key        Key
	Doc        string
	Example    string // an HCL expression, the value of the attribute
}

// Key says how an attribute enters a node's key.
type Key string

const (
	// KeyNone: not applicable (attributes of blocks that are not nodes).
	KeyNone Key = ""
	// KeyValue: the evaluated value, as an attr line.
	KeyValue Key = "value"
	// KeyFiles: the value, and the contents of the files it names.
	KeyFiles Key = "value and the files' contents"
	// KeyInputs: the contents of the files it names, not the value.
	KeyInputs Key = "the files' contents"
	// KeyDigests: the digests of the nodes it names.
	KeyDigests Key = "the named nodes' digests"
	// KeyFacts: the facts the named node requires or captures.
	KeyFacts Key = "the named node's digest and facts"
	// KeyNo: the attribute changes how a node runs, never its result.
	KeyNo Key = "no"
)

// Export is an attribute a node kind exports to other nodes.
type Export struct {
	Name string
	Type cty.Type
	Doc  string
}

// TypeName is the attribute's type as written in HCL: string,
// list(string), map(string), or TypeDoc.
func (a Attr) TypeName() string {
	if a.TypeDoc != "" {
		return a.TypeDoc
	}
	if a.Type == cty.NilType {
		return "any"
	}
	return typeexpr.TypeString(a.Type)
}

// DefaultText is the default as the reference shows it, or "".
func (a Attr) DefaultText() string {
	if a.DefaultDoc != "" {
		return a.DefaultDoc
	}
	if a.Default == cty.NilVal {
		return ""
	}
	return ValueText(a.Default)
}

// ValueText writes a literal value as HCL.
func ValueText(v cty.Value) string {
	switch {
	case v.IsNull():
		return "null"
	case v.Type() == cty.String:
		return fmt.Sprintf("%q", v.AsString())
	case v.Type() == cty.Bool:
		return fmt.Sprint(v.True())
	case v.Type() == cty.Number:
		return v.AsBigFloat().Text('f', -1)
	}
	return v.GoString()
}

// Spec is the hcldec spec the loader decodes a block of this type with.
func (b *Block) Spec() hcldec.ObjectSpec {
	spec := hcldec.ObjectSpec{}
	for _, a := range b.Attrs {
		ty := a.Type
		if ty == cty.NilType {
			ty = cty.DynamicPseudoType
		}
		var s hcldec.Spec = &hcldec.AttrSpec{Name: a.Name, Type: ty, Required: a.Required}
		if a.Default != cty.NilVal {
			s = &hcldec.DefaultSpec{Primary: s, Default: &hcldec.LiteralSpec{Value: a.Default}}
		}
		spec[a.Name] = s
	}
	for _, nb := range b.Blocks {
		if nb.Repeated {
			spec[nb.Name] = &hcldec.BlockListSpec{TypeName: nb.Name, Nested: nb.Spec()}
		} else {
			spec[nb.Name] = &hcldec.BlockSpec{TypeName: nb.Name, Nested: nb.Spec(), Required: nb.Required}
		}
	}
	return spec
}

// BodySchema is the hcl body schema of the block's content, for blocks the
// loader reads attribute by attribute.
func (b *Block) BodySchema() *hcl.BodySchema {
	s := &hcl.BodySchema{}
	for _, a := range b.Attrs {
		s.Attributes = append(s.Attributes, hcl.AttributeSchema{Name: a.Name, Required: a.Required})
	}
	for _, nb := range b.Blocks {
		s.Blocks = append(s.Blocks, hcl.BlockHeaderSchema{Type: nb.Name, LabelNames: nb.Labels})
	}
	return s
}

// AttrNames lists the attribute names in the order they are declared.
func (b *Block) AttrNames() []string {
	out := make([]string, len(b.Attrs))
	for i, a := range b.Attrs {
		out[i] = a.Name
	}
	return out
}

// Attr returns the attribute called name, or nil.
func (b *Block) Attr(name string) *Attr {
	for i := range b.Attrs {
		if b.Attrs[i].Name == name {
			return &b.Attrs[i]
		}
	}
	return nil
}

// Nested returns the nested block called name, or nil.
func (b *Block) Nested(name string) *Block {
	for _, nb := range b.Blocks {
		if nb.Name == name {
			return nb
		}
	}
	return nil
}

// Sorted returns a copy of the block's attributes ordered as the reference
// lists them: required first, then by name.
func (b *Block) Sorted() []Attr {
	out := append([]Attr(nil), b.Attrs...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Required != out[j].Required {
			return out[i].Required
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Function is one function of the language.
type Function struct {
	Name string
	// Signature is how a call is written: "join(separator, lists...)".
	Signature string
	Doc       string
	Example   string // a call
	Result    string // what Example evaluates to, as HCL
}

// Reference is the whole language: node kinds, the meta-arguments every
// node takes, the other top-level blocks and the functions.
type Reference struct {
	Kinds     []*Block
	Meta      *Block
	Blocks    []*Block
	Functions []Function
}

// Block returns the kind or top-level block called name, or nil.
func (r *Reference) Block(name string) *Block {
	for _, b := range append(append([]*Block(nil), r.Kinds...), r.Blocks...) {
		if b.Name == name {
			return b
		}
	}
	if r.Meta != nil && (name == r.Meta.Name || name == "meta") {
		return r.Meta
	}
	return nil
}

// Function returns the function called name, or nil.
func (r *Reference) Function(name string) *Function {
	for i := range r.Functions {
		if r.Functions[i].Name == name {
			return &r.Functions[i]
		}
	}
	return nil
}

// IsKind reports whether b is a node kind of r.
func (r *Reference) IsKind(b *Block) bool {
	for _, k := range r.Kinds {
		if k == b {
			return true
		}
	}
	return false
}

// DurationText writes a duration default as a pipeline would: "1m", not
// "1m0s".
func DurationText(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return fmt.Sprintf("%q", s)
}
