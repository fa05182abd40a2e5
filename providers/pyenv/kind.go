package pyenv

import (
	"context"
	"path/filepath"
	"time"

	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/zclconf/go-cty/cty"
)

// PythonEnv is the python_env node kind.
type PythonEnv struct {
	// KillGrace is how long a process gets between SIGTERM and SIGKILL
	// when the build is cancelled.
	KillGrace time.Duration
}

var (
	_ kind.Kind     = (*PythonEnv)(nil)
	_ kind.Verifier = (*PythonEnv)(nil)
	_ kind.KeyFiles = (*PythonEnv)(nil)
)

// New returns the python_env kind.
func New() kind.Kind { return &PythonEnv{KillGrace: DefaultKillGrace} }

// DefaultKillGrace is the time between SIGTERM and SIGKILL.
const DefaultKillGrace = 5 * time.Second

// Name is the block type.
func (*PythonEnv) Name() string { return "python_env" }

// Version enters every key of the kind. Change it when the same
// configuration starts building a different venv.
func (*PythonEnv) Version() string { return "1" }

// Spec is the schema of a python_env block.
func (*PythonEnv) Spec() hcldec.ObjectSpec { return blockSchema.Spec() }

// Exports are python and bin under the node's stable path, and
// site_packages, known once built.
func (*PythonEnv) Exports(n *kind.Node) map[string]cty.Value {
	return map[string]cty.Value{
		"python":        cty.StringVal(filepath.Join(n.Out, "bin", "python")),
		"bin":           cty.StringVal(filepath.Join(n.Out, "bin")),
		"site_packages": cty.UnknownVal(cty.String),
	}
}

// Build creates the venv in Build.Dir and runs the install steps in order,
// then checks the constraints and pip check. See the package doc.
func (p *PythonEnv) Build(ctx context.Context, b *kind.Build) (*kind.Result, error) {
	return p.build(ctx, b)
}

// Verify runs pip freeze in the recorded venv and compares its digest with
// the recorded one; drift names what was added, removed or changed.
func (p *PythonEnv) Verify(ctx context.Context, n *kind.Node, rec *kind.Record) (string, error) {
	return p.verify(ctx, n, rec)
}

// KeyFiles are the requirements files (and the files they include with -r
// or -c) and local wheels that do not live under the state folder: their
// contents enter the key. Files under the state folder belong to upstream
// nodes, whose digests enter the key already.
func (*PythonEnv) KeyFiles(n *kind.Node) []string { return keyFiles(n) }

func (p *PythonEnv) grace() time.Duration {
	if p.KillGrace <= 0 {
		return DefaultKillGrace
	}
	return p.KillGrace
}
