package metrics

import (
	"fmt"
	"regexp"
	"strings"
)

// Formats are the named line formats a Spec may use.
var Formats = []string{"verl", "jsonl"}

// Spec says which metrics to read from a node's log lines.
type Spec struct {
	Format   string           // "", "verl" or "jsonl"
	Patterns []*regexp.Regexp // named groups are values; "step" is the step
	Step     string           // jsonl: the key holding the step
	Keys     []string         // globs of the keys to keep ("*" matches any text, "/" too); empty keeps all

	keys *regexp.Regexp // Keys compiled; nil keeps all
}

// SpecError is a problem with one attribute of a metrics block.
type SpecError struct {
	Attr  string // format, patterns, step or keys
	Index int    // the element of a list attribute, or -1
	Msg   string
}

func (e *SpecError) Error() string {
	if e.Index >= 0 {
		return fmt.Sprintf("%s[%d]: %s", e.Attr, e.Index, e.Msg)
	}
	return e.Attr + ": " + e.Msg
}

// NewSpec checks and compiles a metrics block's attributes.
func NewSpec(format string, patterns []string, step string, keys []string) (*Spec, error) {
	s := &Spec{Format: format, Step: step, Keys: keys}
	switch format {
	case "", "verl", "jsonl":
	default:
		return nil, &SpecError{Attr: "format", Index: -1, Msg: fmt.Sprintf("unknown format %q; kiln reads %s, or write patterns with named groups", format, strings.Join(quoted(Formats), " and "))}
	}
	if format == "" && len(patterns) == 0 {
		return nil, &SpecError{Attr: "format", Index: -1, Msg: `a metrics block needs a format ("verl" or "jsonl") or patterns`}
	}
	if step != "" && format != "jsonl" {
		return nil, &SpecError{Attr: "step", Index: -1, Msg: `step names the step's key in format "jsonl"; in a pattern, name the group step: (?P<step>\d+)`}
	}
	if s.Step == "" {
		s.Step = "step"
	}
	for i, p := range patterns {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, &SpecError{Attr: "patterns", Index: i, Msg: err.Error()}
		}
		values := 0
		for _, name := range re.SubexpNames() {
			if name != "" && name != "step" {
				values++
			}
		}
		if values == 0 {
			return nil, &SpecError{Attr: "patterns", Index: i, Msg: fmt.Sprintf("%q names no value: name each value's group, as in loss=(?P<loss>\\S+)", p)}
		}
		s.Patterns = append(s.Patterns, re)
	}
	if len(keys) > 0 {
		alts := make([]string, len(keys))
		for i, k := range keys {
			if k == "" {
				return nil, &SpecError{Attr: "keys", Index: i, Msg: "an empty glob matches no key"}
			}
			alts[i] = globRegexp(k)
		}
		s.keys = regexp.MustCompile("^(?:" + strings.Join(alts, "|") + ")$")
	}
	return s, nil
}

// globRegexp turns a glob, where * matches any text and ? one character,
// into a regular expression.
func globRegexp(g string) string {
	var b strings.Builder
	for _, part := range strings.SplitAfter(g, "*") {
		lit, star := strings.CutSuffix(part, "*")
		for i, q := range strings.Split(lit, "?") {
			if i > 0 {
				b.WriteString(".")
			}
			b.WriteString(regexp.QuoteMeta(q))
		}
		if star {
			b.WriteString(".*")
		}
	}
	return b.String()
}

// keep reports whether key passes the Keys filter.
func (s *Spec) keep(key string) bool {
	return s.keys == nil || s.keys.MatchString(key)
}

func quoted(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}
