package review

import (
	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/plan"
)

// keyChanges explains the difference between the static key lines of one
// node at two versions, in the sentences kiln plan uses.
func keyChanges(old, cur []hash.Line) []plan.Reason { return plan.DiffKeyLines(old, cur) }

// excerpt shortens two versions of a long value to where they differ.
func excerpt(old, cur string) (string, string) { return plan.Excerpt(old, cur) }

// clip shortens a long value for a one-line reason.
func clip(s string) string { return plan.Clip(s) }
