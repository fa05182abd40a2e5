package plan

import (
	"slices"
	"strconv"
	"strings"

	"github.com/kilnbuild/kiln/engine/hash"
)

// Rekey rewrites the lines of a node's key that was wholly known — its
// record's lines, as keyLines wrote them — for new digests of its input and
// key files and new states of its upstreams, as keyLines would write them
// for the same configuration. The engine's plan after an edit uses it to
// decide a built node again without loading the pipeline; it is exact only
// while the node's evaluated configuration is unchanged (the same files,
// variables and environment, and no upstream value read but its out path).
//
// files maps the subject of an input or file line (as SplitKeyLine gives
// it) to its new digest. ups maps an upstream's address (the note of its
// dep line) to its new digest, or to "" when it will run first: its line
// keeps the digest the node was built with and is marked waiting, as in
// Decide. Lines of neither are kept. ok is false when a line cannot be
// rewritten that way (a quoted subject, a dep line without a note, an
// upstream named but not in the lines); the caller then takes the full path.
func Rekey(lines []string, files, ups map[string]string) (out []string, waiting map[int]string, ok bool) {
	out = slices.Clone(lines)
	waiting = map[int]string{}
	seen := referencedUpstreams(lines)
	var unseen []int // indexes of the dep lines no other line refers to
	changed := false
	used := map[string]bool{}
	slots := 0
	for i, l := range lines {
		label, subject, value := SplitKeyLine(l)
		switch label {
		case "input", "file":
			d, ok := files[subject]
			if !ok {
				continue
			}
			used["file "+subject] = true
			if strings.HasPrefix(l, label+` "`) || !strings.HasSuffix(l, " "+value) || len(value) != len(d) {
				return nil, nil, false
			}
			out[i] = l[:len(l)-len(value)] + d
		case "dep":
			slot, _, _ := strings.Cut(strings.TrimPrefix(l, "dep "), " ")
			n, err := strconv.Atoi(slot)
			slots++
			if err != nil || n != slots || !strings.Contains(l, hash.NoteSep) {
				return nil, nil, false
			}
			if !seen[n] {
				unseen = append(unseen, i)
			}
			d, ok := ups[subject]
			if !ok {
				continue
			}
			used["dep "+subject] = true
			if d == "" {
				waiting[i] = subject
				continue
			}
			if len(d) != len(value) {
				return nil, nil, false
			}
			out[i] = "dep " + slot + " " + d + l[len("dep "+slot+" ")+len(value):]
			changed = changed || d != value
		}
	}
	if len(used) != len(files)+len(ups) || len(seen)+len(unseen) != slots {
		return nil, nil, false
	}
	for n := range seen {
		if n < 1 || n > len(seen) {
			return nil, nil, false // references must be 1..m, the unseen after
		}
	}
	if changed && len(unseen) > 1 {
		// Upstreams no other line names are numbered by digest, then
		// address: a new digest may reorder them.
		renumberUnseen(out, unseen, waiting)
	}
	return out, waiting, true
}

// referencedUpstreams returns the numbers N of the ${upstream:N} references
// in a key's attribute, input and file lines.
func referencedUpstreams(lines []string) map[int]bool {
	seen := map[int]bool{}
	for _, l := range lines {
		if strings.HasPrefix(l, "dep ") {
			continue
		}
		for rest := l; ; {
			i := strings.Index(rest, "${upstream:")
			if i < 0 {
				break
			}
			rest = rest[i+len("${upstream:"):]
			j := strings.IndexByte(rest, '}')
			if j < 0 {
				break
			}
			if n, err := strconv.Atoi(rest[:j]); err == nil {
				seen[n] = true
			}
			rest = rest[j+1:]
		}
	}
	return seen
}

// renumberUnseen sorts the dep lines at the indexes given (consecutive,
// numbered after the referenced ones) by digest, then address, and numbers
// them again, moving their waiting marks with them.
func renumberUnseen(lines []string, at []int, waiting map[int]string) {
	type dep struct{ digest, note, wait string }
	deps := make([]dep, len(at))
	first := 0
	for k, i := range at {
		_, _, digest := SplitKeyLine(lines[i])
		_, note, _ := strings.Cut(lines[i], hash.NoteSep)
		deps[k] = dep{digest: digest, note: note, wait: waiting[i]}
		delete(waiting, i)
		if k == 0 {
			slot, _, _ := strings.Cut(strings.TrimPrefix(lines[i], "dep "), " ")
			first, _ = strconv.Atoi(slot)
		}
	}
	slices.SortStableFunc(deps, func(a, b dep) int {
		if c := strings.Compare(a.digest, b.digest); c != 0 {
			return c
		}
		return strings.Compare(a.note, b.note)
	})
	for k, i := range at {
		d := deps[k]
		lines[i] = "dep " + strconv.Itoa(first+k) + " " + d.digest + hash.NoteSep + d.note
		if d.wait != "" {
			waiting[i] = d.wait
		}
	}
}

// KeySum is the key whose lines, with their notes, are lines: what
// hash.Key.Sum gives for the key they were written from.
func KeySum(lines []string) string {
	bare := make([]string, len(lines))
	for i, l := range lines {
		if strings.HasPrefix(l, "dep ") {
			l, _, _ = strings.Cut(l, hash.NoteSep)
		}
		bare[i] = l
	}
	return hash.Lines(bare...).String()
}
