package config

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// outline is what a diagnostic needs of a file's syntax tree once the
// tree is let go (ForgetFiles): where each top-level block lies and how
// its header reads, so that a diagnostic's context still says `in exec
// "c"`. It stands in for the tree's own navigation as hcl.File.Nav, which
// HCL's diagnostic writer asks for ContextString.
type outline []outlined

type outlined struct {
	start, end int // bytes of the block, end exclusive
	header     string
}

// outlineOf outlines f's top-level blocks; nil for a file that is not
// HCL's native syntax.
func outlineOf(f *hcl.File) outline {
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok {
		return nil
	}
	out := make(outline, 0, len(body.Blocks))
	for _, b := range body.Blocks {
		r := b.Range()
		out = append(out, outlined{start: r.Start.Byte, end: r.End.Byte, header: blockHeader(b)})
	}
	return out
}

// blockHeader is a block's type and quoted labels, as HCL's own
// navigation writes them.
func blockHeader(b *hclsyntax.Block) string {
	if len(b.Labels) == 0 {
		return b.Type
	}
	var s strings.Builder
	s.WriteString(b.Type)
	for _, l := range b.Labels {
		fmt.Fprintf(&s, " %q", l)
	}
	return s.String()
}

// ContextString is the header of the top-level block that holds offset,
// or "" outside every block.
func (o outline) ContextString(offset int) string {
	i := sort.Search(len(o), func(i int) bool { return o[i].end > offset })
	if i < len(o) && o[i].start <= offset {
		return o[i].header
	}
	return ""
}
