package state

import (
	"strconv"
	"strings"

	"github.com/kilnbuild/kiln/engine/hash"
)

// A record of state format 3 or earlier holds its key lines as text, not
// as fields: Lines reads them, once, with legacyLine. The split is the one
// those kilns wrote: "label subject value" (quoted whole where it held a
// newline), a dep line "dep N DIGEST # ADDR". A line that cannot be split
// that way (a label kiln no longer writes) keeps its text as the value of
// its label, so it still shows and still differs from any line kiln writes
// now. The record's key is its own field, so an inexact split can change
// how a difference is explained, never a decision: the plan after an edit,
// the one reader that sums recorded lines again (engine/memo), first checks
// that they give the record's key.

// legacyLine is a key line of an older kiln, written as text.
func legacyLine(l string) hash.Line {
	label, rest, _ := strings.Cut(l, " ")
	if label == "dep" {
		if v, note, ok := strings.Cut(rest, hash.NoteSep); ok {
			// dep N DIGEST # ADDR; before key format 2: dep ADDR DIGEST.
			slot, digest, _ := strings.Cut(v, " ")
			if u, err := strconv.Unquote(note); err == nil {
				note = u
			}
			return hash.Line{Label: label, Subject: slot, Value: digest, Note: note}
		}
	}
	if u, err := strconv.Unquote(rest); err == nil && strings.HasPrefix(rest, `"`) {
		rest = u // a value with a newline or a leading quote, quoted whole
	}
	switch label {
	case "attr", "input", "file", "dep", "fact", "env", "kind", "read", "pin", "program", "from", "run":
		subject, value, ok := strings.Cut(rest, " ")
		if !ok {
			return hash.Line{Label: label, Value: rest}
		}
		switch label {
		case "input", "file", "read", "program", "from":
			subject = hash.UnescapeSubject(subject)
		}
		return hash.Line{Label: label, Subject: subject, Value: value}
	}
	return hash.Line{Label: label, Value: rest}
}
