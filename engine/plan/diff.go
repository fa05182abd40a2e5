package plan

import (
	"os"
	"strings"
)

// keyLine splits a key line into its label, subject and value. Labels with a
// subject (attr, input, file, dep, fact, env) name one influence each.
func keyLine(l string) (label, subject, value string) {
	label, rest, _ := strings.Cut(l, " ")
	switch label {
	case "attr", "input", "file", "dep", "fact", "env", "kind":
		subject, value, _ = strings.Cut(rest, " ")
	default:
		value = rest
	}
	if label == "input" || label == "file" {
		subject = UnescapeSubject(subject)
	}
	return label, subject, value
}

// diffKeyLines explains the difference between a recorded key and a new
// one, influence by influence, in the order of the new key.
func diffKeyLines(old, cur []string) []Reason {
	before := map[string]string{}
	var order []string
	for _, l := range old {
		label, subject, value := keyLine(l)
		before[label+" "+subject] = value
		order = append(order, label+" "+subject)
	}
	var reasons []Reason
	seen := map[string]bool{}
	for _, l := range cur {
		label, subject, value := keyLine(l)
		id := label + " " + subject
		seen[id] = true
		was, ok := before[id]
		if ok && was == value {
			continue
		}
		reasons = append(reasons, lineReason(label, subject, was, value, ok))
	}
	for _, id := range order {
		if seen[id] {
			continue
		}
		label, subject, _ := strings.Cut(id, " ")
		r := lineReason(label, subject, before[id], "", true)
		switch label {
		case "input", "file":
			r = Reason{Kind: "input_removed", Subject: subject}
		case "dep":
			r = Reason{Kind: "upstream_removed", Subject: subject}
		case "attr":
			r = Reason{Kind: "attribute", Subject: subject, Old: clip(before[id]), New: "(unset)"}
		}
		reasons = append(reasons, r)
	}
	return reasons
}

func lineReason(label, subject, old, cur string, existed bool) Reason {
	switch label {
	case "attr":
		if !existed {
			return Reason{Kind: "attribute", Subject: subject, Old: "(unset)", New: clip(cur)}
		}
		o, c := clipPair(old, cur)
		return Reason{Kind: "attribute", Subject: subject, Old: o, New: c}
	case "input", "file":
		if !existed {
			return Reason{Kind: "input_added", Subject: subject}
		}
		return Reason{Kind: "input", Subject: subject, Old: short(old), New: short(cur)}
	case "dep":
		if !existed {
			return Reason{Kind: "upstream_added", Subject: subject}
		}
		return Reason{Kind: "upstream", Subject: subject, Old: short(old), New: short(cur)}
	case "fact":
		return Reason{Kind: "fact", Subject: subject, Old: old, New: cur}
	case "env":
		return Reason{Kind: "env", Subject: subject}
	case "kind":
		return Reason{Kind: "kind", Subject: subject, Old: old, New: cur}
	case "format":
		return Reason{Kind: "format", Old: old, New: cur}
	}
	return Reason{Kind: label, Detail: label + " changed"}
}

// clip shortens long attribute values for one-line reasons.
func clip(s string) string {
	const max = 120
	if len(s) <= max {
		return s
	}
	return s[:max-1] + "…"
}

// clipPair shortens two long values to the part where they differ, with a
// little context, so a one-character change in a long command stays visible.
func clipPair(a, b string) (string, string) {
	const max, context = 120, 40
	if len(a) <= max && len(b) <= max {
		return a, b
	}
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	cut := func(s string) string {
		start := max0(pre - context)
		end := len(s) - max0(suf-context)
		out := s[start:end]
		if len(out) > max {
			out = out[:max-1] + "…"
		}
		if start > 0 {
			out = "…" + out
		}
		if end < len(s) && len(out) <= max {
			out += "…"
		}
		return out
	}
	return cut(a), cut(b)
}

func max0(n int) int {
	if n < 0 {
		return 0
	}
	return n
}

// resumable reports whether an interrupted run of key left a folder to
// resume in.
func (d *Decider) resumable(key string) bool {
	if _, ok := d.Store.Meta(key); ok {
		return false
	}
	fi, err := os.Stat(d.Store.EntryPath(key))
	return err == nil && fi.IsDir()
}
