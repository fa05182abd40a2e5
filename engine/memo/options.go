package memo

import (
	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/pool"
)

// Options say which pipeline a plan from the memo is for, and with what.
type Options struct {
	Path     string            // the pipeline's file or folder
	Version  string            // kiln's version: a memo of another is none
	Vars     map[string]string // -var values
	VarFiles []string          // -var-file files
	// Full, when not "", is why this plan must be the full one: -target,
	// -replace, a remote cache, -strict-lock, KILN_DEBUG_KEY.
	Full  string
	Kinds []kind.Kind // by name, for the nodes decided again
	Pools pool.Set    // this machine's pools, as the full plan finds them
	// Say prints why the memo was or was not used (KILN_DEBUG_PLAN).
	Say func(string)
	// Stat is the stat cache to hash through, when the caller holds it
	// (the full plan's); by default the state folder's is loaded.
	Stat *hash.StatCache
}
