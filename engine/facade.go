package engine

import (
	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/lockfile"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/run"
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
