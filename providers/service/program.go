package service

import (
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/kind/attr"
)

var _ kind.ProgramRunner = (*Service)(nil)

// Program is what a list command runs, found the way exec finds its own
// (proc.LookPath) and the way Build starts it: in dir for a relative path,
// on the PATH of the node's environment (its toolchain's variables,
// env_prepend and env_append) with env on top for a bare name. A string
// command runs /bin/sh -c and names no program of its own, and a command
// with a sensitive value is not resolved (its program would enter the key
// in clear).
func (*Service) Program(n *kind.Node) (name, dir string, env []string, ok bool) {
	cfg, ok := attr.ListCommand(n.Config)
	if n.Env == nil || !ok {
		return "", "", nil, false
	}
	c, err := decodeConfig(cfg, n.Root, n.Out)
	if err != nil {
		return "", "", nil, false
	}
	return c.command[0], c.dir, environ(n.Env, c.env), true
}
