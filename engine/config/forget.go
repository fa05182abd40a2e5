package config

import "github.com/hashicorp/hcl/v2"

// ForgetSyntax lets go of the syntax trees of the pipeline's node blocks,
// which hold most of a large pipeline's memory, once none of its nodes is
// to be evaluated again: an apply that has run every node calls it before
// it writes the state and the memo, the largest things it holds at its
// end. The files keep their bytes, for the source lines of diagnostics;
// variables, locals and outputs keep their expressions, so outputs are
// still evaluated. Evaluating a node afterwards is refused (EvaluateRun).
func (p *Pipeline) ForgetSyntax() {
	for name, f := range p.Files {
		p.Files[name] = &hcl.File{Bytes: f.Bytes}
	}
	for _, b := range p.Blocks {
		b.Body, b.ForEach, b.Count = nil, nil, nil
		b.meta, b.metrics, b.lifecycle, b.slurm = nil, nil, nil, nil
	}
	p.executorBlocks, p.cacheBlocks, p.poolBlocks = nil, nil, nil
}

// forgotten is the refusal to evaluate a node whose syntax tree
// ForgetSyntax let go.
func forgotten(n *Node) hcl.Diagnostics {
	return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Configuration no longer held",
		Detail:  "The configuration of " + n.Addr.String() + " was let go after the apply ran every node; open the pipeline again to evaluate it.",
		Subject: &n.DeclRange}}
}
