package sandbox

import "fmt"

// Protection is what confines a run on this machine.
type Protection struct {
	// Landlock is the kernel's Landlock ABI version; 0 without Landlock.
	Landlock int
	// Reason says why there is no Landlock, when there is none.
	Reason string
	// View reports whether sealed runs see their folders at the fixed
	// places below ViewRoot; ViewReason says why not.
	View       bool
	ViewReason string
}

// Enforced reports whether runs are confined, not only checked after.
func (p Protection) Enforced() bool { return p.Landlock > 0 }

// String is the protection as kiln plan states it.
func (p Protection) String() string {
	var s string
	if p.Enforced() {
		s = fmt.Sprintf("Landlock (ABI %d): a node writes only its own result, its outputs and its temporary folder, and reads in the pipeline folder only what it declares", p.Landlock)
	} else {
		s = "checked after each run only (" + p.Reason + "): a node's writes into an upstream's result are found when it ends, not stopped"
	}
	return s + "; " + p.Paths()
}

// Paths says where sealed runs see their folders, as kiln plan states it.
func (p Protection) Paths() string {
	if p.View {
		return "paths fixed: each run sees the pipeline folder at " + ViewPipeline + " and each result at " + ResultAt("KEY") + ", so results do not depend on where the pipeline lives"
	}
	return "paths not fixed (" + p.ViewReason + "): a result may hold the paths of the folder it was built in"
}

// Relocation says whether sealed runs can see their folders at the fixed
// places of a View on this machine: nil when they can, else why not. It
// needs Linux, root (or CAP_SYS_ADMIN) and an empty or missing ViewRoot,
// which it makes.
func Relocation() error { return viewProbe() }
