package plan

import (
	"fmt"
	"path/filepath"
	"sort"

	"github.com/hashicorp/hcl/v2"
)

// overlappingOutputs refuses in-place outputs that two nodes share: the same
// path, or one inside the other. Each apply would find the other node's
// result where its own should be and repair it, forever. The diagnostic
// names both declarations.
func overlappingOutputs(root string, outs []inPlaceOutput) hcl.Diagnostics {
	sorted := append([]inPlaceOutput(nil), outs...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].path < sorted[j].path })
	var diags hcl.Diagnostics
	reported := map[[2]string]bool{}
	for i, a := range sorted {
		for _, b := range sorted[i+1:] {
			if b.path != a.path && !within(a.path, b.path) {
				if len(b.path) > len(a.path) && b.path[:len(a.path)] == a.path {
					continue // a sibling with a longer name (build, build2): keep looking
				}
				break
			}
			if a.by == b.by {
				continue
			}
			pair := [2]string{a.by.String(), b.by.String()}
			if reported[pair] {
				continue
			}
			reported[pair] = true
			first, second := a, b
			if second.node.DeclRange.Start.Byte < first.node.DeclRange.Start.Byte && second.node.DeclRange.Filename == first.node.DeclRange.Filename {
				first, second = second, first
			}
			at := first.node.AttrRange("outputs")
			what := fmt.Sprintf("%s and %s both declare %s in outputs", first.by, second.by, relTo(root, a.path))
			if a.path != b.path {
				what = fmt.Sprintf("%s declares %s in outputs, and %s declares %s, which is inside it", a.by, relTo(root, a.path), b.by, relTo(root, b.path))
			}
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Two nodes write " + filepath.ToSlash(relTo(root, a.path)),
				Detail: fmt.Sprintf("%s (%s at %s:%d, and here). Each apply would find the other's result where its own should be and repair it, forever. A path is the output of at most one node: let one of them write it, and the other read it (inputs) or write elsewhere.",
					what, first.by, at.Filename, at.Start.Line),
				Subject: second.node.AttrRange("outputs").Ptr(),
			})
		}
	}
	return diags
}
