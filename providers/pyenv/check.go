package pyenv

import (
	"fmt"
	"slices"
	"strings"
)

// Inventory is what a venv holds: normalised distribution name → the
// distinct versions installed (more than one means a broken install).
type Inventory map[string][]string

// Snapshot is the inventory after one point of the build: the new venv
// (Step 0) or install step Step, described by Label.
type Snapshot struct {
	Step  int
	Label string
	Dists Inventory
}

// newInventory builds an Inventory from (name, version) pairs.
func newInventory(pairs [][2]string) Inventory {
	inv := Inventory{}
	for _, p := range pairs {
		name := NormaliseName(p[0])
		if name == "" {
			continue
		}
		if !slices.Contains(inv[name], p[1]) {
			inv[name] = append(inv[name], p[1])
		}
	}
	for _, vs := range inv {
		slices.Sort(vs)
	}
	return inv
}

// CheckConstraints returns one line per violated constraint, in the order
// the constraints are written. snaps holds the inventory after venv creation
// and after each install step; the last one is what the venv holds now.
func CheckConstraints(cs []Constraint, snaps []Snapshot) []string {
	if len(snaps) == 0 {
		return nil
	}
	final := snaps[len(snaps)-1].Dists
	var out []string
	for _, c := range cs {
		name := NormaliseName(c.Name)
		versions := final[name]
		required := "any version"
		if len(c.Specs) > 0 {
			required = specsString(c.Specs)
		}
		switch {
		case len(versions) == 0:
			out = append(out, fmt.Sprintf("%s: not installed, required %s%s", c.Name, required, origin(name, snaps, "removed")))
		case len(versions) > 1:
			out = append(out, fmt.Sprintf("%s: installed %s at once, required exactly one version%s",
				c.Name, strings.Join(versions, " and "), origin(name, snaps, "installed")))
		default:
			if msg := unmet(c.Specs, versions[0]); msg != "" {
				out = append(out, fmt.Sprintf("%s: installed %s, required %s%s", c.Name, versions[0], msg, origin(name, snaps, "installed")))
			}
		}
	}
	return out
}

// CheckAbsent returns one line per distribution of names that the venv
// holds although it must not (triton on Ascend), naming the step that
// installed it.
func CheckAbsent(names []string, snaps []Snapshot) []string {
	if len(snaps) == 0 {
		return nil
	}
	final := snaps[len(snaps)-1].Dists
	var out []string
	for _, n := range names {
		name := NormaliseName(n)
		if versions := final[name]; len(versions) > 0 {
			out = append(out, fmt.Sprintf("%s: installed %s, required absent%s", n, strings.Join(versions, " and "), origin(name, snaps, "installed")))
		}
	}
	return out
}

// unmet is "" when installed meets every specifier, else the specifiers
// as the report shows them.
func unmet(specs []Specifier, installed string) string {
	for _, s := range specs {
		ok, err := s.Allows(installed)
		if err != nil {
			return fmt.Sprintf("%s (the installed version is not PEP 440, only === can match it)", specsString(specs))
		}
		if !ok {
			return specsString(specs)
		}
	}
	return ""
}

func specsString(specs []Specifier) string {
	parts := make([]string, len(specs))
	for i, s := range specs {
		parts[i] = s.String()
	}
	return strings.Join(parts, ",")
}

// origin names the last step that changed what is installed of name, as
// " (VERB by step N: label)", or " (present in the new venv)" when no step
// touched it. verb is "installed" or "removed".
func origin(name string, snaps []Snapshot, verb string) string {
	for i := len(snaps) - 1; i > 0; i-- {
		if !slices.Equal(snaps[i].Dists[name], snaps[i-1].Dists[name]) {
			return fmt.Sprintf(" (%s by step %d: %s)", verb, snaps[i].Step, snaps[i].Label)
		}
	}
	if len(snaps[0].Dists[name]) > 0 {
		return " (present in the new venv)"
	}
	return " (no install step installed it)"
}

// report is the error listing every violated constraint (and absent
// distribution) and, when pip_check
// is "error", every complaint of pip check; nil when there is none.
func report(violations, complaints []string, mode string) error {
	if mode != "error" {
		complaints = nil
	}
	if len(violations) == 0 && len(complaints) == 0 {
		return nil
	}
	var b strings.Builder
	if len(violations) > 0 {
		b.WriteString("constraints not met:\n")
		for _, v := range violations {
			b.WriteString("  " + v + "\n")
		}
	}
	if len(complaints) > 0 {
		b.WriteString("pip check found broken requirements:\n")
		for _, c := range complaints {
			b.WriteString("  " + c + "\n")
		}
	}
	b.WriteString("Pin the versions you need in a later install step (for example packages = [\"name==version\"] with no_deps = true) or change constraints")
	if len(complaints) > 0 {
		b.WriteString("; set pip_check = \"warn\" to accept what pip check reports")
	}
	return fmt.Errorf("%s", b.String())
}

func parseConstraints(raw []string) ([]Constraint, error) {
	out := make([]Constraint, 0, len(raw))
	for _, r := range raw {
		c, err := ParseConstraint(r)
		if err != nil {
			return nil, fmt.Errorf("constraints: %w", err)
		}
		out = append(out, c)
	}
	return out, nil
}
