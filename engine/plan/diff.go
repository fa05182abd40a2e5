package plan

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/human"
)

// RecordedUpstreams maps the address of each upstream on a key's dep lines
// to the digest the key was made with.
func RecordedUpstreams(lines []hash.Line) map[string]string {
	out := map[string]string{}
	for _, l := range lines {
		if l.Label == "dep" {
			out[l.About()] = l.Value
		}
	}
	return out
}

// DiffKeyLines explains the difference between a recorded key and a new
// one, influence by influence, in the order of the new key, then what the
// new key no longer has. kiln plan, explain and diff all say it this way.
func DiffKeyLines(old, cur []hash.Line) []Reason {
	if sameButWaiting(old, cur, nil) {
		return nil
	}
	type id struct{ label, subject string }
	before := map[id]string{}
	var order []id
	for _, l := range old {
		i := id{l.Label, l.About()}
		before[i] = l.Value
		order = append(order, i)
	}
	var reasons []Reason
	seen := map[id]bool{}
	sealedBefore := slices.ContainsFunc(old, func(l hash.Line) bool { return l.Label == "run" })
	for _, l := range cur {
		label, subject, value := l.Label, l.About(), l.Value
		i := id{label, subject}
		seen[i] = true
		was, ok := before[i]
		if ok && was == value {
			continue
		}
		if label == "run" && !sealedBefore && len(old) > 0 {
			// A record an older kiln made, before runs were sealed: one
			// reason for the whole contract.
			if !slices.ContainsFunc(reasons, func(r Reason) bool { return r.Kind == ReasonRun && r.Subject == "" }) {
				reasons = append(reasons, Reason{Kind: ReasonRun})
			}
			continue
		}
		if label == "attr" && ok {
			if rs := structuredReasons(subject, was, value); rs != nil {
				reasons = append(reasons, rs...)
				continue
			}
		}
		reasons = append(reasons, lineReason(label, subject, was, value, ok))
	}
	for _, i := range order {
		if seen[i] {
			continue
		}
		label, subject := i.label, i.subject
		r := lineReason(label, subject, before[i], "", true)
		switch label {
		case "input", "file":
			r = Reason{Kind: ReasonInputRemoved, Subject: subject}
		case "dep":
			r = Reason{Kind: ReasonUpstreamRemoved, Subject: subject}
		case "attr":
			r = Reason{Kind: ReasonAttribute, Subject: subject, Old: Clip(before[i]), New: "(unset)"}
		case "read":
			r = Reason{Kind: ReasonFileRead, Subject: subject, Old: human.Short(before[i])}
		case "pin":
			r = Reason{Kind: ReasonPin, Subject: subject, Old: before[i], New: "(none)"}
		case "program":
			r = Reason{Kind: ReasonProgram, Subject: subject, Old: programText(before[i]), New: "(none: a shell string)"}
		case "run":
			r = Reason{Kind: ReasonRun, Subject: subject, Old: before[i], New: "(unset)"}
		}
		reasons = append(reasons, r)
	}
	return reasons
}

func lineReason(label, subject, old, cur string, existed bool) Reason {
	switch label {
	case "attr":
		if !existed {
			return Reason{Kind: ReasonAttribute, Subject: subject, Old: "(unset)", New: Clip(cur)}
		}
		o, c := Excerpt(old, cur)
		return Reason{Kind: ReasonAttribute, Subject: subject, Old: o, New: c}
	case "input", "file":
		if !existed {
			return Reason{Kind: ReasonInputAdded, Subject: subject}
		}
		return Reason{Kind: ReasonInput, Subject: subject, Old: human.Short(old), New: human.Short(cur)}
	case "dep":
		if !existed {
			return Reason{Kind: ReasonUpstreamAdded, Subject: subject}
		}
		return Reason{Kind: ReasonUpstream, Subject: subject, Old: human.Short(old), New: human.Short(cur)}
	case "from":
		if !existed {
			return Reason{Kind: ReasonFrom, Subject: subject, New: human.Short(cur)}
		}
		return Reason{Kind: ReasonFrom, Subject: subject, Old: human.Short(old), New: human.Short(cur)}
	case "fact":
		return Reason{Kind: ReasonFact, Subject: subject, Old: old, New: cur}
	case "env":
		return Reason{Kind: ReasonEnv, Subject: subject}
	case "read":
		if !existed {
			return Reason{Kind: ReasonFileRead, Subject: subject, New: human.Short(cur)}
		}
		return Reason{Kind: ReasonFileRead, Subject: subject, Old: human.Short(old), New: human.Short(cur)}
	case "pin":
		if !existed {
			old = "(none)"
		}
		return Reason{Kind: ReasonPin, Subject: subject, Old: old, New: cur}
	case "program":
		if !existed {
			return Reason{Kind: ReasonProgram, Subject: subject, Old: "(not keyed)", New: programText(cur)}
		}
		return Reason{Kind: ReasonProgram, Subject: subject, Old: programText(old), New: programText(cur)}
	case "kind":
		return Reason{Kind: ReasonNodeKind, Subject: subject, Old: old, New: cur}
	case "run":
		if !existed {
			old = "(unset)"
		}
		return Reason{Kind: ReasonRun, Subject: subject, Old: old, New: cur}
	case "format":
		return Reason{Kind: ReasonFormat, Old: old, New: cur}
	}
	// A line kiln no longer writes, in a record an older kiln made.
	return Reason{Kind: ReasonKey, Detail: label + " changed"}
}

// programText shows a program line's value: the path, and a short digest
// for a program inside the pipeline folder.
func programText(v string) string {
	path, digest, ok := strings.Cut(v, " ")
	if !ok {
		return hash.UnescapeSubject(path)
	}
	return hash.UnescapeSubject(path) + " (" + human.Short(digest) + ")"
}

// maxValue is the longest attribute value a reason shows whole.
const maxValue = 120

// excerptContext is how much of a long value is kept on each side of the
// part that changed.
const excerptContext = 40

// Clip shortens a long value for a one-line reason.
func Clip(s string) string {
	if len(s) <= maxValue {
		return s
	}
	return validPrefix(s, maxValue-1) + "…"
}

// Excerpt shortens two versions of a long value to the part that differs,
// with some context on either side, marking what was cut with "…", so a
// one-character change at the end of a long command stays visible.
func Excerpt(old, cur string) (string, string) {
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
