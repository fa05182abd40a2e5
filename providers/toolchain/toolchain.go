package toolchain

import (
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/zclconf/go-cty/cty"
)

// Toolchain is the toolchain node kind.
type Toolchain struct {
	// Grace is how long a cancelled process group has between SIGTERM and
	// SIGKILL.
	Grace time.Duration
	// ProbeTimeout bounds a plan-time probe command.
	ProbeTimeout time.Duration
}

var (
	_ kind.Kind   = (*Toolchain)(nil)
	_ kind.Prober = (*Toolchain)(nil)
)

// New returns the toolchain kind with a 5 s grace period and a 30 s probe
// timeout.
func New() kind.Kind {
	return &Toolchain{Grace: 5 * time.Second, ProbeTimeout: 30 * time.Second}
}

// Name is the block type.
func (t *Toolchain) Name() string { return "toolchain" }

// Version enters every toolchain key.
func (t *Toolchain) Version() string { return "toolchain/1" }

// Spec is the schema of a toolchain block.
func (t *Toolchain) Spec() hcldec.ObjectSpec { return blockSchema.Spec() }

// Exports are env (known once built) and version (from the configuration).
func (t *Toolchain) Exports(n *kind.Node) map[string]cty.Value {
	version := cty.UnknownVal(cty.String)
	if v := n.Config; !v.IsNull() && v.Type().IsObjectType() && v.Type().HasAttribute("version") {
		if a := v.GetAttr("version"); a.Type() == cty.String && !a.IsNull() {
			version = a
		}
	}
	return map[string]cty.Value{
		"env":     cty.UnknownVal(cty.Map(cty.String)),
		"version": version,
	}
}

// label is how messages name the node: "toolchain cann".
func label(a addr.Node) string {
	return "toolchain " + a.Name + a.Key.String()
}

// product names what to install in messages: "CANN" for toolchain "cann".
func product(a addr.Node) string {
	return strings.ToUpper(a.Name)
}
