package sandbox

import "fmt"

// Protection is what confines a run on this machine.
type Protection struct {
	// Landlock is the kernel's Landlock ABI version; 0 without Landlock.
	Landlock int
	// Reason says why there is no Landlock, when there is none.
	Reason string
}

// Enforced reports whether runs are confined, not only checked after.
func (p Protection) Enforced() bool { return p.Landlock > 0 }

// String is the protection as kiln plan states it.
func (p Protection) String() string {
	if p.Enforced() {
		return fmt.Sprintf("Landlock (ABI %d): a node writes only its own result, its outputs and its temporary folder, and reads in the pipeline folder only what it declares", p.Landlock)
	}
	return "checked after each run only (" + p.Reason + "): a node's writes into an upstream's result are found when it ends, not stopped"
}
