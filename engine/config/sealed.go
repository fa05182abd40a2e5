package config

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/zclconf/go-cty/cty"
)

// evalSealing reads the arguments that shape a sealed run (see
// engine/sandbox): shell, sandbox and sandbox_reason. They mean something
// only to kinds the engine seals.
func (p *Pipeline) evalSealing(n *Node, get func(string, cty.Type) (cty.Value, bool)) hcl.Diagnostics {
	var diags hcl.Diagnostics
	meta := n.Block.meta
	_, sealed := n.Block.Kind.(kind.Sealed)
	for _, name := range []string{"shell", "sandbox", "sandbox_reason"} {
		if a, ok := meta[name]; ok && !sealed {
			return append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid " + name,
				Detail:  name + " shapes how exec and service nodes run their processes; a " + n.Block.Kind.Name() + " node runs kiln's own steps. Remove it.",
				Subject: a.Expr.Range().Ptr()})
		}
	}
	if v, ok := get("shell", cty.List(cty.String)); ok {
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			n.Meta.Shell = append(n.Meta.Shell, e.AsString())
		}
		diags = append(diags, checkShell(n.Meta.Shell, meta["shell"].Expr.Range())...)
	}
	reason := ""
	if v, ok := get("sandbox_reason", cty.String); ok {
		reason = v.AsString()
	}
	v, ok := get("sandbox", cty.DynamicPseudoType)
	if ok {
		v, ok = sandboxMode(n, v, meta["sandbox"].Expr.Range(), &diags)
	}
	if ok && v.False() {
		if reason == "" {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Missing sandbox_reason",
				Detail:  `sandbox = false lets the node write outside its result and read all of the pipeline folder, which kiln can no longer check; say why beside it, e.g. sandbox_reason = "installs the CANN toolkit under /usr/local/Ascend". Plan and report show the reason.`,
				Subject: meta["sandbox"].Expr.Range().Ptr()})
			reason = "(no reason given)"
		}
		n.Meta.Unsandboxed = reason
	} else if a, set := meta["sandbox_reason"]; set {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid sandbox_reason",
			Detail:  "sandbox_reason explains sandbox = false, which this node does not set: add sandbox = false, or remove the reason.",
			Subject: a.Expr.Range().Ptr()})
	}
	return diags
}

// checkShell refuses a shell setting a string command cannot be appended
// to.
func checkShell(shell []string, r hcl.Range) hcl.Diagnostics {
	if len(shell) == 0 || shell[0] == "" {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid shell",
			Detail:  `shell is the program and its arguments a string command is appended to, e.g. ["bash", "-euo", "pipefail", "-c"]; it cannot be empty.`,
			Subject: r.Ptr()}}
	}
	return nil
}

// sandboxMode reads sandbox: true or false (returned as a bool), or
// "report", which sets n.Meta.ReportReads and reads as true.
func sandboxMode(n *Node, v cty.Value, r hcl.Range, diags *hcl.Diagnostics) (cty.Value, bool) {
	if v.Type() == cty.String && v.AsString() == "report" {
		n.Meta.ReportReads = true
		return cty.True, true
	}
	if b, err := convertTo(v, cty.Bool); err == nil {
		return b, true
	}
	*diags = append(*diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid sandbox",
		Detail:  `sandbox is true (the default: sealed), false (unconfined, with a sandbox_reason) or "report" (writes sealed, undeclared reads of the pipeline folder allowed and named after each run).`,
		Subject: r.Ptr()})
	return cty.NilVal, false
}
