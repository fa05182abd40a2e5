package exec

import (
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/zclconf/go-cty/cty"
)

var _ kind.ProgramRunner = (*Kind)(nil)

// Program is what a list command runs, found the way Build finds it: in dir
// for a relative path, on the PATH of the node's environment with env on
// top for a bare name. A string command runs /bin/sh -c and names no
// program of its own, and a command with a sensitive value is not resolved.
func (*Kind) Program(n *kind.Node) (name, dir string, env []string, ok bool) {
	cfg := n.Config
	if n.Env == nil || cfg.IsNull() || !cfg.IsWhollyKnown() || !cfg.Type().IsObjectType() {
		return "", "", nil, false
	}
	// A command holding a sensitive value (read with env()) is not resolved:
	// its program would enter the key in clear.
	if c := cfg.GetAttr("command"); c.IsNull() || c.Type() == cty.String || c.ContainsMarked() {
		return "", "", nil, false
	}
	cfg, _ = cfg.UnmarkDeep()
	argv, err := Command(cfg)
	if err != nil {
		return "", "", nil, false
	}
	dir, env, err = placeAndEnv(cfg, n.Root, n.Env)
	if err != nil {
		return "", "", nil, false
	}
	return argv[0], dir, env, true
}
