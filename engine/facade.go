package engine

import (
	"context"
	"io"
	"os"

	"github.com/hashicorp/hcl/v2"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/lockfile"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/run"
	"github.com/kilnbuild/kiln/engine/run/job"
	"github.com/kilnbuild/kiln/engine/schema"
	"github.com/kilnbuild/kiln/engine/state"
)

// The names of the engine's parts that the commands use besides a
// Workspace, so that the CLI reaches the engine through this package and
// engine/render.

// KeyFormat is the version of the key format this kiln computes keys in.
const KeyFormat = hash.FormatVersion

// LockFileName is the name of the lock file in a pipeline folder.
const LockFileName = lockfile.FileName

// Plan is what a plan decided, node by node.
type Plan = plan.Plan

// Result is what an apply did, node by node.
type Result = run.Result

// DiagError carries the configuration errors a node's run found.
type DiagError = run.DiagError

// Outcomes and check statuses the commands tell apart.
const (
	Failed      = run.Failed
	Mismatch    = run.Mismatch
	CheckFailed = run.CheckFailed
)

// Pipeline is a loaded pipeline: its blocks, variables and outputs.
type Pipeline = config.Pipeline

// State is the state of a pipeline folder: a record per node.
type State = state.State

// Record is what kiln knows about one node's result.
type Record = state.Record

// LoadPipeline loads the pipeline at path without a state or a plan, for
// what only names its parts (shell completion); its diagnostics are left
// out.
func LoadPipeline(path string, kinds []kind.Kind) (*Pipeline, error) {
	p, diags := config.Load(path, config.Options{Kinds: kinds})
	if p == nil && diags.HasErrors() {
		return nil, diags
	}
	return p, nil
}

// PipelineFiles are the pipeline files in dir, and the pipeline folder.
func PipelineFiles(dir string) (files []string, root string, err error) {
	return config.Files(dir)
}

// Reference is the language reference of the kinds.
func Reference(kinds []kind.Kind) *schema.Reference { return config.Reference(kinds) }

// CheckNesting refuses a file whose brackets nest deeper than kiln reads.
func CheckNesting(src []byte, filename string) hcl.Diagnostics {
	return config.CheckNesting(src, filename, false)
}

// LoadState reads the state in the state folder dir.
func LoadState(dir string) (*State, error) { return state.Load(dir) }

// StateFolderLink is where a state folder that is a symbolic link kiln
// accepts leads, or "" when it is a plain folder.
func StateFolderLink(dir string) (string, error) { return state.FolderLink(dir) }

// WriteFileAtomic replaces the file at path with data whole or not at all.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	return state.WriteFileAtomic(path, data, perm)
}

// RunJob runs the one node a batch job's spec describes, as the local
// executor would, and hashes its result where it lies (kiln job run).
func RunJob(ctx context.Context, spec *job.Spec, kinds map[string]kind.Kind, log io.Writer) *job.Result {
	return run.RunJob(ctx, spec, kinds, log)
}
