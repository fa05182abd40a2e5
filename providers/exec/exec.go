package exec

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	osexec "os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/kind/attr"
	"github.com/kilnbuild/kiln/engine/proc"
	"github.com/kilnbuild/kiln/engine/sandbox"
	"github.com/zclconf/go-cty/cty"
)

// Kind runs commands.
type Kind struct {
	// Grace is how long a process group has between SIGTERM and SIGKILL.
	Grace time.Duration
}

var _ kind.Kind = (*Kind)(nil)

// New returns the exec kind.
func New() *Kind { return &Kind{Grace: 10 * time.Second} }

func (*Kind) Name() string    { return "exec" }
func (*Kind) Version() string { return "1" }

// Spec is the schema of the block (see Schema).
func (*Kind) Spec() hcldec.ObjectSpec { return blockSchema.Spec() }

func (*Kind) Exports(*kind.Node) map[string]cty.Value { return nil }

// Portable: a command runs the same in a Slurm job, from its configuration.
func (*Kind) Portable() bool { return true }

// Shareable: the result is the output folder (a node with in-place outputs
// is not pushed; the engine checks).
func (*Kind) Shareable() bool { return true }

// Sealed: the engine seals every run (engine/sandbox).
func (*Kind) Sealed() {}

// Command returns the argv a configuration runs: a string command appended
// to shell (nil for /bin/sh -c), a list as it is.
func Command(cfg cty.Value, shell []string) ([]string, error) {
	v := cfg.GetAttr("command")
	if v.IsNull() {
		return nil, errors.New("command is empty")
	}
	switch t := v.Type(); {
	case t == cty.String:
		if len(shell) == 0 {
			shell = []string{"/bin/sh", "-c"}
		}
		return append(slices.Clone(shell), v.AsString()), nil
	case t.IsListType() || t.IsTupleType():
		var argv []string
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			if e.Type() != cty.String || e.IsNull() {
				return nil, errors.New("command must be a string, or a list of strings")
			}
			argv = append(argv, e.AsString())
		}
		if len(argv) == 0 {
			return nil, errors.New("command is an empty list")
		}
		return argv, nil
	default:
		return nil, errors.New("command must be a string (run by /bin/sh -c) or a list of strings (run directly)")
	}
}

// Outputs returns the in-place outputs a configuration declares.
func Outputs(cfg cty.Value) ([]string, error) {
	v := cfg.GetAttr("outputs")
	if v.IsNull() {
		return nil, nil
	}
	var out []string
	for it := v.ElementIterator(); it.Next(); {
		i, e := it.Element()
		if e.IsNull() {
			return nil, fmt.Errorf("outputs[%s] is null: list paths only", i.AsBigFloat().String())
		}
		out = append(out, e.AsString())
	}
	return out, nil
}

func (k *Kind) Build(ctx context.Context, b *kind.Build) (*kind.Result, error) {
	argv, err := Command(b.Config, b.Shell)
	if err != nil {
		return nil, err
	}
	shellCommand := b.Config.GetAttr("command").Type() == cty.String
	dir, env, err := placeAndEnv(b.Config, b.Root, b.Env)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("dir %s does not exist (create it, or point dir at an existing folder)", dir)
	}
	outputs, err := Outputs(b.Config)
	if err != nil {
		return nil, err
	}
	path, err := proc.LookPath(argv[0], dir, env)
	if err != nil {
		return nil, err
	}
	cmd := osexec.Command(path, argv[1:]...)
	cmd.Args[0] = argv[0]
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = nil
	cmd.Stdout = b.Log
	cmd.Stderr = b.Log
	if err := proc.RunWith(ctx, cmd, k.Grace, starter(b.Sandbox)); err != nil {
		var exit *proc.ExitError
		if errors.As(err, &exit) && exit.Code == 127 && shellCommand {
			return nil, fmt.Errorf("%w (the shell could not find a command: see the log)", err)
		}
		return nil, err
	}
	return &kind.Result{Outputs: outputs}, nil
}

// starter starts a command under policy, or as it is without one.
func starter(policy *sandbox.Policy) func(*osexec.Cmd) error {
	if policy == nil {
		return nil
	}
	return policy.Start
}

// placeAndEnv is where a configuration runs its command (dir, relative to
// root, or root) and its environment: base with env on top.
func placeAndEnv(cfg cty.Value, root string, base []string) (dir string, env []string, err error) {
	r := attr.Read(cfg)
	dir = r.String("dir")
	vars := r.StringMap("env")
	if err := r.Err(); err != nil {
		return "", nil, err
	}
	switch {
	case dir == "":
		dir = root
	case !filepath.IsAbs(dir):
		dir = filepath.Join(root, dir)
	}
	env = append([]string(nil), base...)
	for _, name := range slices.Sorted(maps.Keys(vars)) {
		env = setEnv(env, name, vars[name])
	}
	return dir, env, nil
}

func setEnv(env []string, name, val string) []string {
	prefix := name + "="
	for i, kv := range env {
		if strings.HasPrefix(kv, prefix) {
			env[i] = prefix + val
			return env
		}
	}
	return append(env, prefix+val)
}
