package config

import (
	"fmt"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/kilnbuild/kiln/engine/kind"
)

// metaArgs are the engine's own arguments, valid in every node block.
var metaArgs = MetaArguments.AttrNames()

// metaSchema is the schema of the meta-arguments, made once.
var metaSchema = sync.OnceValue(MetaArguments.BodySchema)

// lifecycleSchema is the content of a lifecycle block, in Terraform's
// spelling: prevent_replace = true is protect = true.
var lifecycleSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "prevent_replace"}}}

// metricsSchema is the content of a metrics block (engine/metrics).
var metricsSchema = MetaArguments.Nested("metrics").BodySchema()

// decodeMetrics takes the attributes of a node's metrics block, if any;
// they are evaluated with the other meta-arguments.
func decodeMetrics(blk *Block, blocks hcl.Blocks) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for i, b := range blocks {
		if i > 0 {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate metrics block",
				Detail: fmt.Sprintf("A node has at most one metrics block; the first is at %s. Put every pattern in its patterns list.", blocks[0].DefRange), Subject: b.DefRange.Ptr()})
			continue
		}
		content, d := b.Body.Content(metricsSchema)
		diags = append(diags, d...)
		blk.metrics = content.Attributes
		blk.metricsRange = b.DefRange
	}
	return diags
}

func decodeBlock(k kind.Kind, spec *kindSpec, b *hcl.Block) (*Block, hcl.Diagnostics) {
	content, remain, diags := b.Body.PartialContent(metaSchema())
	if len(content.Attributes) == 0 && len(content.Blocks) == 0 && len(diags) == 0 {
		// Nothing was taken out: the remaining body is the block's own,
		// kept instead of a copy that hides what is not there (two maps
		// per block, 50 MB over 100,000 blocks).
		remain = b.Body
	}
	blk := &Block{Kind: k, spec: spec, Name: b.Labels[0], DeclRange: b.DefRange, syntax: remain, meta: content.Attributes}
	if body, ok := b.Body.(*hclsyntax.Body); ok {
		blk.Source, _ = sourceRange(b)
		blk.names = namesIn(body)
	}
	for _, mb := range content.Blocks {
		if mb.Type == "slurm" {
			if blk.slurm != nil {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate slurm block", Detail: "A node has at most one slurm block.", Subject: mb.DefRange.Ptr()})
				continue
			}
			blk.slurm = mb
		}
	}
	diags = append(diags, decodeMetrics(blk, content.Blocks.OfType("metrics"))...)
	for i, lb := range content.Blocks.OfType("lifecycle") {
		if i > 0 {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate lifecycle block", Detail: "A node has at most one lifecycle block.", Subject: lb.DefRange.Ptr()})
			continue
		}
		c, d := lb.Body.Content(lifecycleSchema)
		diags = append(diags, d...)
		blk.lifecycle = c.Attributes
	}
	if !hclIdent(blk.Name) {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid node name",
			Detail:   fmt.Sprintf("%q is not a valid name: use letters, digits, underscores and dashes, starting with a letter.", blk.Name),
			Subject:  b.LabelRanges[0].Ptr(),
		})
	}
	if a, ok := content.Attributes["for_each"]; ok {
		blk.ForEach, blk.instances = a.Expr, a.Range
	}
	if a, ok := content.Attributes["count"]; ok {
		blk.Count, blk.instances = a.Expr, a.Range
		if blk.ForEach != nil {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid combination of count and for_each",
				Detail:   "A node block may use count or for_each, not both.",
				Subject:  a.NameRange.Ptr(),
			})
		}
	}
	blk.outputs = bodyAttribute(remain, "outputs")
	// The kind's own attributes are decoded against its spec here once, with
	// no context, only to report unknown arguments early and with suggestions.
	diags = append(diags, checkSchema(spec.schema, remain)...)
	return blk, diags
}

func hclIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if i == 0 && !letter && c != '_' {
			return false
		}
		if !letter && c != '_' && c != '-' && !(c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func decodeStatic(a *hcl.Attribute, target any) hcl.Diagnostics {
	return gohcl.DecodeExpression(a.Expr, nil, target)
}
