package pyenv

import (
	"fmt"
	"regexp"
	"strings"
)

// Constraint is one entry of a node's constraints: a distribution name and
// the specifiers its installed version must meet. No specifiers means the
// distribution must be installed in exactly one version.
type Constraint struct {
	Raw   string
	Name  string // as written
	Specs []Specifier
}

// Specifier is one comparison of a constraint, e.g. ">=0.8.0".
type Specifier struct {
	Op       string // ==, !=, >=, <=, >, <, ~=, ===
	Text     string // the version as written
	Version  Version
	Wildcard bool // ==X.* or !=X.*
}

func (s Specifier) String() string { return s.Op + s.Text }

var (
	namePattern = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?`)
	extras      = regexp.MustCompile(`^\[[^\]]*\]`)
	operators   = []string{"===", "~=", "==", "!=", "<=", ">=", "<", ">"}
)

// ParseConstraint parses "name", "name==1.0", "name[extra]>=1,<2,!=1.5" or
// "name~=2.7". Direct references (name @ url) and environment markers are
// not supported: a constraint checks what is installed on this machine.
func ParseConstraint(raw string) (Constraint, error) {
	s := strings.TrimSpace(raw)
	if strings.Contains(s, ";") {
		return Constraint{}, fmt.Errorf("constraint %q: environment markers (;) are not supported; write the constraint for this machine", raw)
	}
	name := namePattern.FindString(s)
	if name == "" {
		return Constraint{}, fmt.Errorf("constraint %q: expected a distribution name such as torch or torch-npu", raw)
	}
	rest := strings.TrimSpace(s[len(name):])
	rest = strings.TrimSpace(strings.TrimPrefix(rest, extras.FindString(rest)))
	if strings.HasPrefix(rest, "@") {
		return Constraint{}, fmt.Errorf("constraint %q: direct references (name @ url) are not supported; constrain the version instead", raw)
	}
	c := Constraint{Raw: raw, Name: name}
	if rest == "" {
		return c, nil
	}
	for _, part := range strings.Split(rest, ",") {
		spec, err := parseSpecifier(strings.TrimSpace(part))
		if err != nil {
			return Constraint{}, fmt.Errorf("constraint %q: %w", raw, err)
		}
		c.Specs = append(c.Specs, spec)
	}
	return c, nil
}

func parseSpecifier(s string) (Specifier, error) {
	var op string
	for _, o := range operators {
		if strings.HasPrefix(s, o) {
			op = o
			break
		}
	}
	if op == "" {
		return Specifier{}, fmt.Errorf("specifier %q: expected one of ==, !=, >=, <=, >, <, ~=, === and a version", s)
	}
	text := strings.TrimSpace(s[len(op):])
	spec := Specifier{Op: op, Text: text}
	if op == "===" {
		return spec, nil
	}
	v := text
	if (op == "==" || op == "!=") && strings.HasSuffix(text, ".*") {
		spec.Wildcard = true
		v = strings.TrimSuffix(text, ".*")
	}
	ver, err := ParseVersion(v)
	if err != nil {
		return Specifier{}, fmt.Errorf("specifier %q: %w", s, err)
	}
	if spec.Wildcard && (ver.IsPre() || ver.Post != nil || ver.Local != "") {
		return Specifier{}, fmt.Errorf("specifier %q: a .* prefix may only follow release numbers", s)
	}
	if op == "~=" && len(ver.Release) < 2 {
		return Specifier{}, fmt.Errorf("specifier %q: ~= needs at least two release parts, e.g. ~=2.7", s)
	}
	if ver.Local != "" && op != "==" && op != "!=" {
		return Specifier{}, fmt.Errorf("specifier %q: a local version label (+...) is only allowed with == and !=", s)
	}
	spec.Version = ver
	return spec, nil
}

// Allows reports whether an installed version, as its metadata spells it,
// meets the specifier. Pre-releases are ordinary versions here: a constraint
// checks what is installed, it does not choose what to install. An error
// means the installed version is not PEP 440 and only === can match it.
func (s Specifier) Allows(installed string) (bool, error) {
	if s.Op == "===" {
		return strings.EqualFold(strings.TrimSpace(installed), s.Text), nil
	}
	v, err := ParseVersion(installed)
	if err != nil {
		return false, err
	}
	switch s.Op {
	case "==":
		return s.equal(v), nil
	case "!=":
		return !s.equal(v), nil
	case ">=":
		return Compare(v.Public(), s.Version) >= 0, nil
	case "<=":
		return Compare(v.Public(), s.Version) <= 0, nil
	case ">":
		// >1.0 does not admit 1.0.post1 or 1.0+local: they are 1.0.
		if Compare(v.Public(), s.Version) <= 0 {
			return false, nil
		}
		if s.Version.Post == nil && v.Post != nil && sameBase(v, s.Version) {
			return false, nil
		}
		return true, nil
	case "<":
		// <2.0 does not admit 2.0rc1: it is a pre-release of 2.0.
		if Compare(v.Public(), s.Version) >= 0 {
			return false, nil
		}
		if !s.Version.IsPre() && v.IsPre() && sameBase(v, s.Version) {
			return false, nil
		}
		return true, nil
	case "~=":
		prefix := Specifier{Op: "==", Wildcard: true, Version: Version{Epoch: s.Version.Epoch, Release: s.Version.Release[:len(s.Version.Release)-1]}}
		return Compare(v.Public(), s.Version) >= 0 && prefix.equal(v), nil
	}
	return false, fmt.Errorf("unknown operator %q", s.Op)
}

// equal is == matching: a .* prefix compares the leading release parts; a
// specifier without a local label ignores the installed one.
func (s Specifier) equal(v Version) bool {
	if s.Wildcard {
		if v.Epoch != s.Version.Epoch {
			return false
		}
		for i, p := range s.Version.Release {
			var got uint64
			if i < len(v.Release) {
				got = v.Release[i]
			}
			if got != p {
				return false
			}
		}
		return true
	}
	if s.Version.Local == "" {
		v = v.Public()
	}
	return Compare(v, s.Version) == 0
}

func sameBase(a, b Version) bool {
	return a.Epoch == b.Epoch && compareRelease(a.Release, b.Release) == 0
}

// NormaliseName is a distribution name as PEP 503 compares it: lowercase,
// with runs of "-", "_" and "." as one "-".
func NormaliseName(name string) string {
	var b strings.Builder
	sep := false
	for _, r := range strings.ToLower(strings.TrimSpace(name)) {
		if r == '-' || r == '_' || r == '.' {
			sep = true
			continue
		}
		if sep && b.Len() > 0 {
			b.WriteByte('-')
		}
		sep = false
		b.WriteRune(r)
	}
	return b.String()
}
