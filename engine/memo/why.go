package memo

import (
	"fmt"
	"sync/atomic"
)

// Why the memo was not used. Each refusal of the no-change check, of the
// plan after an edit and of writing the memo says what it found through
// miss, which returns false; KILN_DEBUG_PLAN=1 (Options.Say) prints the
// first one of each answer, so that a plan slower than
// expected can be explained: "exec.a: input data.txt changed", "the
// pipeline's files changed", "service.db probes the machine".

// whyNot collects the first refusal of one quick answer.
type whyNot struct {
	what   string // the answer: "the no-change check was not used", ...
	say    func(string)
	done   atomic.Bool
	reason string // the first miss's, when said
}

// newWhyNot is the refusals of what, which is an answer ("the no-change
// check") or, said with " not written", the memo.
func newWhyNot(what string, say func(string)) *whyNot {
	return &whyNot{what: what, say: say}
}

// miss says why, once per answer, and returns false.
func (w *whyNot) miss(format string, args ...any) bool {
	if w != nil && w.say != nil && w.done.CompareAndSwap(false, true) {
		not := " was not used: "
		if w.what == "the memo" {
			not = " was not written: "
		}
		w.reason = fmt.Sprintf(format, args...)
		w.say(w.what + not + w.reason)
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
