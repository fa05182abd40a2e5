package providers

import (
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/providers/exec"
	"github.com/kilnbuild/kiln/providers/fetch"
	"github.com/kilnbuild/kiln/providers/gitrepo"
	"github.com/kilnbuild/kiln/providers/host"
	"github.com/kilnbuild/kiln/providers/pyenv"
	"github.com/kilnbuild/kiln/providers/service"
	"github.com/kilnbuild/kiln/providers/toolchain"
)

// All returns a fresh instance of every node kind.
func All() []kind.Kind {
	return []kind.Kind{
		exec.New(),
		fetch.New(),
		gitrepo.New(),
		host.New(),
		pyenv.New(),
		service.New(),
		toolchain.New(),
	}
}
