package config

import (
	"github.com/hashicorp/hcl/v2"
)

// decodeSettings reads a kiln block: settings of the pipeline itself.
//
//	kiln {
//	  strict_lock = true # a build must reproduce kiln.lock.hcl (as -strict)
//	  shell = ["bash", "-eo", "pipefail", "-c"] # what string commands run in
//	}
func (p *Pipeline) decodeSettings(b *hcl.Block) hcl.Diagnostics {
	content, diags := b.Body.Content(SettingsBlock.BodySchema())
	if a, ok := content.Attributes["strict_lock"]; ok {
		diags = append(diags, decodeStatic(a, &p.StrictLock)...)
	}
	if a, ok := content.Attributes["shell"]; ok {
		diags = append(diags, decodeStatic(a, &p.Shell)...)
		diags = append(diags, checkShell(p.Shell, a.Expr.Range())...)
	}
	return diags
}
