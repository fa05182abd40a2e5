package main

import (
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/providers"
)

// kinds returns a fresh instance of every node kind. It is the one place
// the CLI names the providers: everything else asks the engine, which asks
// a kind what it can do through the interfaces of engine/kind.
func kinds() []kind.Kind { return providers.All() }
