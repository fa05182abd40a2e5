package config

import (
	"github.com/hashicorp/hcl/v2"
)

// decodeSettings reads a kiln block: settings of the pipeline itself.
//
//	kiln {
//	  strict_lock = true # a build must reproduce kiln.lock.hcl (as -strict)
//	}
func (p *Pipeline) decodeSettings(b *hcl.Block) hcl.Diagnostics {
	content, diags := b.Body.Content(SettingsBlock.BodySchema())
	if a, ok := content.Attributes["strict_lock"]; ok {
		diags = append(diags, decodeStatic(a, &p.StrictLock)...)
	}
	return diags
}
