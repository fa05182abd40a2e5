package review

import (
	"strings"
	"unicode/utf8"

	"github.com/kilnbuild/kiln/engine/plan"
)

// The logic below follows plan's explanation of a changed key (diffKeyLines)
// so that kiln diff and kiln plan say the same sentences, with one
// difference: a long attribute value is shown around its first change, so
// an edited flag at the end of a long command stays visible.

// keyLine splits a static key line into its label, subject and value.
// Labels with a subject (attr, input, file, dep, fact, env) name one
// influence each; a "dep ADDR" line has no value.
func keyLine(l string) (label, subject, value string) {
	label, rest, _ := strings.Cut(l, " ")
	switch label {
	case "attr", "input", "file", "dep", "fact", "env":
		subject, value, _ = strings.Cut(rest, " ")
	default:
		value = rest
	}
	return label, subject, value
}

// keyChanges explains the difference between the static key lines of one
// node at two versions, influence by influence, in the order of the new
// lines, then what the new version no longer has.
func keyChanges(old, cur []string) []plan.Reason {
	before := map[string]string{}
	var order []string
	for _, l := range old {
		label, subject, value := keyLine(l)
		before[label+" "+subject] = value
		order = append(order, label+" "+subject)
	}
	var reasons []plan.Reason
	seen := map[string]bool{}
	for _, l := range cur {
		label, subject, value := keyLine(l)
		id := label + " " + subject
		seen[id] = true
		was, ok := before[id]
		if ok && was == value {
			continue
		}
		reasons = append(reasons, lineChange(label, subject, was, value, ok))
	}
	for _, id := range order {
		if seen[id] {
			continue
		}
		label, subject, _ := strings.Cut(id, " ")
		reasons = append(reasons, lineRemoved(label, subject, before[id]))
	}
	return reasons
}

func lineChange(label, subject, old, cur string, existed bool) plan.Reason {
	switch label {
	case "attr":
		if !existed {
			return plan.Reason{Kind: "attribute", Subject: subject, Old: "(unset)", New: clip(cur)}
		}
		o, n := excerpt(old, cur)
		return plan.Reason{Kind: "attribute", Subject: subject, Old: o, New: n}
	case "input", "file":
		if !existed {
			return plan.Reason{Kind: "input_added", Subject: subject}
		}
		return plan.Reason{Kind: "input", Subject: subject, Old: shortDigest(old), New: shortDigest(cur)}
	case "dep":
		if !existed {
			return plan.Reason{Kind: "upstream_added", Subject: subject}
		}
		return plan.Reason{Kind: "upstream", Subject: subject, Old: shortDigest(old), New: shortDigest(cur)}
	case "fact":
		return plan.Reason{Kind: "fact", Subject: subject, Old: old, New: cur}
	case "env":
		return plan.Reason{Kind: "env", Subject: subject}
	case "kind":
		return plan.Reason{Kind: "kind", Subject: "version", Old: old, New: cur}
	case "format":
		return plan.Reason{Kind: "format", Old: old, New: cur}
	}
	return plan.Reason{Kind: label, Detail: label + " changed"}
}

func lineRemoved(label, subject, old string) plan.Reason {
	switch label {
	case "input", "file":
		return plan.Reason{Kind: "input_removed", Subject: subject}
	case "dep":
		return plan.Reason{Kind: "upstream_removed", Subject: subject}
	case "attr":
		return plan.Reason{Kind: "attribute", Subject: subject, Old: clip(old), New: "(unset)"}
	case "env":
		return plan.Reason{Kind: "env", Subject: subject}
	}
	return plan.Reason{Kind: label, Detail: label + " " + subject + " removed"}
}

// maxValue is the longest attribute value a reason shows whole.
const maxValue = 120

// excerptContext is how much of a long value is kept on each side of the
// part that changed.
const excerptContext = 40

// clip shortens a long value for a one-line reason.
func clip(s string) string {
	if len(s) <= maxValue {
		return s
	}
	return validPrefix(s, maxValue-1) + "…"
}

// excerpt shortens two versions of a long value to the part that differs,
// with some context on either side, marking what was cut with "…".
func excerpt(old, cur string) (string, string) {
	if len(old) <= maxValue && len(cur) <= maxValue {
		return old, cur
	}
	prefix := 0
	for prefix < len(old) && prefix < len(cur) && old[prefix] == cur[prefix] {
		prefix++
	}
	suffix := 0
	for suffix < len(old)-prefix && suffix < len(cur)-prefix && old[len(old)-1-suffix] == cur[len(cur)-1-suffix] {
		suffix++
	}
	start := max(prefix-excerptContext, 0)
	cut := func(s string) string {
		end := min(len(s)-suffix+excerptContext, len(s))
		if end-start > maxValue {
			end = start + maxValue
		}
		return mark(s, start, end)
	}
	return cut(old), cut(cur)
}

// mark returns s[start:end], moved to rune boundaries, with "…" where
// something was cut.
func mark(s string, start, end int) string {
	for start > 0 && !utf8.RuneStart(s[start]) {
		start--
	}
	for end < len(s) && !utf8.RuneStart(s[end]) {
		end++
	}
	out := s[start:end]
	if start > 0 {
		out = "…" + out
	}
	if end < len(s) {
		out += "…"
	}
	return out
}

func validPrefix(s string, n int) string {
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// shortDigest is the first 12 characters of a digest, as plans show them.
func shortDigest(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}
