package plan

import (
	"strings"

	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/sandbox"
)

// ContractOf is what a run of n starts from (engine/sandbox): its shell,
// else the pipeline's, and the reproducible environment. nil for a kind
// the engine does not seal.
func ContractOf(p *config.Pipeline, n *config.Node) *sandbox.Contract {
	if n.Block == nil {
		return nil
	}
	if _, ok := n.Block.Kind.(kind.Sealed); !ok {
		return nil
	}
	shell := n.Meta.Shell
	if shell == nil {
		shell = p.Shell
	}
	c := sandbox.NewContract(shell)
	// A run sees fixed paths where this machine can show them, unless
	// its node opted out of the sandbox or runs as a Slurm job, whose srun
	// steps slurmstepd starts outside the job's mount namespace, or the
	// pipeline lives below the view's own folder, which the view hides.
	c.Fixed = n.Meta.Unsandboxed == "" && n.Meta.Executor == "" && sandbox.Relocation() == nil &&
		!strings.HasPrefix(p.Root+"/", sandbox.ViewRoot+"/")
	return &c
}

// runLines are the key lines of n's contract, if any.
func runLines(p *config.Pipeline, n *config.Node) []hash.Line {
	if c := ContractOf(p, n); c != nil {
		return c.KeyLines()
	}
	return nil
}
