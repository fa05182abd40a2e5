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
	p.ForgetFiles()
	for _, b := range p.Blocks {
		p.ForgetBlock(b)
	}
	p.executorBlocks, p.cacheBlocks, p.poolBlocks = nil, nil, nil
}

// ForgetFiles lets go of each file's own hold on its syntax tree, keeping
// its bytes and an outline of its blocks, for the source lines and the
// context of diagnostics: each block's part of the tree is then held by
// the block alone, for ForgetBlock to let go of. Nothing reads a file's
// tree once the pipeline is loaded.
func (p *Pipeline) ForgetFiles() {
	for name, f := range p.Files {
		if f.Body == nil {
			continue // let go already
		}
		var nav any
		if o := outlineOf(f); o != nil {
			nav = o
		}
		p.Files[name] = &hcl.File{Bytes: f.Bytes, Nav: nav}
	}
}

// ForgetBlock lets go of one block's syntax tree, once none of its
// instances is to be evaluated again (an apply calls it as the last one
// ran, kiln plan as the last one is decided); no other block's evaluation
// reads it. It must not run while an instance of b is evaluated.
//
// The block's for_each and count stay: whether it has one says the shape
// of its value (an object of instances, a tuple, one node) wherever
// another block or an output reads it, and a block following it takes its
// instances from them.
func (p *Pipeline) ForgetBlock(b *Block) {
	b.syntaxMu.Lock()
	b.syntax, b.src = nil, nil
	b.syntaxMu.Unlock()
	b.meta, b.metrics, b.lifecycle, b.slurm, b.refs = nil, nil, nil, nil, nil
}

// forgotten is the refusal to evaluate a node whose syntax tree
// ForgetSyntax let go.
func forgotten(n *Node) hcl.Diagnostics {
	return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Configuration no longer held",
		Detail:  "The configuration of " + n.Addr.String() + " was let go after the apply ran every node; open the pipeline again to evaluate it.",
		Subject: &n.DeclRange}}
}
