package pyenv

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/kilnbuild/kiln/engine/hash"
)

// digestOf is the result's identity: the interpreter's version and the
// sorted freeze entries, as labelled lines. Nothing else enters it, so two
// venvs with the same interpreter and distributions have the same digest
// wherever they live.
func digestOf(pythonVersion string, freeze []string) string {
	k := hash.NewKey()
	k.Add("python", oneLine(pythonVersion))
	for _, e := range freeze {
		k.Add("freeze", e)
	}
	return k.Sum().String()
}

// oneLine joins the lines of sys.version ("3.11.7 (main, ...)\n[GCC 12]").
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// normalisePaths rewrites absolute paths under the state folder and the
// pipeline folder (editable projects, local wheels) as $KILN_STATE/... and
// $KILN_ROOT/..., so the digest does not depend on where the pipeline lives.
func normalisePaths(entries []string, state, root string) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = hash.Relocatable(e, state, root)
	}
	slices.Sort(out)
	return out
}

// entryName is the distribution an entry of pip freeze is about: the part
// before ==, " @ " or, for an editable install, the name in its comment or
// #egg= fragment. It falls back to the whole entry.
func entryName(e string) string {
	if m := editableName.FindStringSubmatch(e); m != nil {
		return NormaliseName(m[1] + m[2])
	}
	if !strings.HasPrefix(e, "-e ") {
		if n := namePattern.FindString(e); n != "" {
			return NormaliseName(n)
		}
	}
	return e
}

var editableName = regexp.MustCompile(`\((\S+?)==[^)]*\)\s*$|#egg=([A-Za-z0-9._-]+)`)

// driftReport says how the freeze of a venv differs from the recorded one:
// distributions added, removed and changed, in name order.
func driftReport(oldPython, newPython string, old, now []string) string {
	var parts []string
	if oneLine(oldPython) != oneLine(newPython) {
		parts = append(parts, fmt.Sprintf("python %s → %s", short(oldPython), short(newPython)))
	}
	oldBy, nowBy := byName(old), byName(now)
	var added, removed, changed []string
	for _, n := range slices.Sorted(maps.Keys(nowBy)) {
		o, ok := oldBy[n]
		switch {
		case !ok:
			added = append(added, nowBy[n])
		case o != nowBy[n]:
			changed = append(changed, fmt.Sprintf("%s → %s", o, nowBy[n]))
		}
	}
	for _, n := range slices.Sorted(maps.Keys(oldBy)) {
		if _, ok := nowBy[n]; !ok {
			removed = append(removed, oldBy[n])
		}
	}
	for _, g := range []struct {
		label string
		list  []string
	}{{"added", added}, {"removed", removed}, {"changed", changed}} {
		if len(g.list) > 0 {
			parts = append(parts, g.label+": "+strings.Join(g.list, ", "))
		}
	}
	return strings.Join(parts, "; ")
}

func short(version string) string {
	f := strings.Fields(version)
	if len(f) == 0 {
		return "(unknown)"
	}
	return f[0]
}

func byName(entries []string) map[string]string {
	m := make(map[string]string, len(entries))
	for _, e := range entries {
		m[entryName(e)] = e
	}
	return m
}
