package engine

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
)

// Why the quick path was not taken. Each refusal of the no-change check,
// of the plan after an edit and of the certificate says what it found
// through miss, which returns false; KILN_DEBUG_PLAN=1 (Options.DebugPlan)
// prints the first one of each answer, so that a plan slower than
// expected can be explained: "exec.a: input data.txt changed", "the
// pipeline's files changed", "service.db probes the machine".

// whyNot collects the first refusal of one quick answer.
type whyNot struct {
	what string // the answer: "the no-change check was not used", ...
	say  func(string)
	done atomic.Bool
}

// newWhyNot is the refusals of what, which is an answer ("the no-change
// check") or, said with " not written", what the quick path keeps.
func newWhyNot(what string, say func(string)) *whyNot {
	return &whyNot{what: what, say: say}
}

// miss says why, once per answer, and returns false.
func (w *whyNot) miss(format string, args ...any) bool {
	if w != nil && w.say != nil && w.done.CompareAndSwap(false, true) {
		not := " was not used: "
		if strings.HasPrefix(w.what, "the certificate") || strings.HasPrefix(w.what, "the key lines") {
			not = " was not written: "
		}
		w.say(w.what + not + fmt.Sprintf(format, args...))
	}
	return false
}

// saying reports whether the refusals are said (KILN_DEBUG_PLAN).
func (w *whyNot) saying() bool { return w != nil && w.say != nil }

// took says the answer was used.
func (w *whyNot) took(detail string) {
	if w != nil && w.say != nil && w.done.CompareAndSwap(false, true) {
		w.say(w.what + ": " + detail)
	}
}

// relToRoot is p relative to the pipeline folder root, when it is inside.
func relToRoot(root, p string) string {
	if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return p
}
