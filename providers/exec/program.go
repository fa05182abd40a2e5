package exec

import (
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/kind/attr"
)

var _ kind.ProgramRunner = (*Kind)(nil)

// Program is what a list command runs, found the way Build finds it: in dir
// for a relative path, on the PATH of the node's environment with env on
// top for a bare name. A string command runs /bin/sh -c and names no
// program of its own, and a command with a sensitive value is not resolved.
func (*Kind) Program(n *kind.Node) (name, dir string, env []string, ok bool) {
	cfg, ok := attr.ListCommand(n.Config)
	if n.Env == nil || !ok {
		return "", "", nil, false
	}
	argv, err := Command(cfg, nil)
	if err != nil {
		return "", "", nil, false
	}
	dir, env, err = placeAndEnv(cfg, n.Root, n.Env)
	if err != nil {
		return "", "", nil, false
	}
	return argv[0], dir, env, true
}
