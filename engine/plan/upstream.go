package plan

import (
	"sort"
	"strconv"
	"strings"

	"github.com/kilnbuild/kiln/engine/hash"
)

// How an upstream node enters a key (DESIGN.md §3): its digest on a dep line
// of its own, and, wherever its stable path appears in the configuration, a
// reference ${upstream:N} to that line — never its name or its path. So
// renaming a node changes no downstream key, and a new upstream digest
// changes only the dep line, not the attribute that names the path. The
// address is a note on the dep line, for people: not part of the key.
//
// N numbers the upstreams in the order their paths first appear in the
// key's attribute, input and file lines (which are sorted, so the order does
// not depend on names); upstreams whose path does not appear follow,
// ordered by digest.

// upstream is one upstream node as it enters a key.
type upstream struct {
	addr   string
	out    string // its stable output path, as references evaluate it
	digest string // "" when not known (static lines, a new dependency)
	// waiting: the upstream runs first; digest is the one the node was last
	// built with, assumed until the upstream's new digest is known.
	waiting bool
}

// depValue is the digest on the upstream's dep line.
func (u upstream) depValue() string {
	if u.digest == "" {
		return unknownValue
	}
	return u.digest
}

// Paths are first marked with the upstream's index among the node's deps,
// between two private-use characters that no configuration holds, then the
// marks are numbered once every line is written.
const markOpen, markClose = "\uE000", "\uE001"

// upstreamMarks replaces the stable paths of upstreams with their marks,
// longest path first, so a path that extends another is not cut; nil when
// there are none.
func upstreamMarks(ups []upstream) *hash.Folders {
	if len(ups) == 0 {
		return nil
	}
	outs, marks := make([]string, len(ups)), make([]string, len(ups))
	for i, u := range ups {
		outs[i], marks[i] = u.out, markOpen+strconv.Itoa(i)+markClose
	}
	return hash.NewFolders(outs, marks)
}

// numberUpstreams numbers the upstreams (see above) and rewrites the marks
// in the lines' subjects and values as ${upstream:N}. It returns the
// upstreams in their order.
func numberUpstreams(ups []upstream, lines []hash.Line) []upstream {
	slot := make([]int, len(ups)) // 0: not seen yet
	var order []upstream
	see := func(v string) {
		for rest := v; ; {
			i := strings.Index(rest, markOpen)
			if i < 0 {
				return
			}
			rest = rest[i+len(markOpen):]
			j := strings.Index(rest, markClose)
			if j < 0 {
				return
			}
			if n, err := strconv.Atoi(rest[:j]); err == nil && n < len(ups) && slot[n] == 0 {
				order = append(order, ups[n])
				slot[n] = len(order)
			}
			rest = rest[j+len(markClose):]
		}
	}
	for _, l := range lines {
		see(l.Subject)
		see(l.Value)
	}
	var unseen []upstream
	for i, u := range ups {
		if slot[i] == 0 {
			unseen = append(unseen, u)
		}
	}
	sort.SliceStable(unseen, func(a, b int) bool {
		if unseen[a].digest != unseen[b].digest {
			return unseen[a].digest < unseen[b].digest
		}
		return unseen[a].addr < unseen[b].addr
	})
	order = append(order, unseen...)
	if len(order) == len(unseen) {
		return order
	}
	for i := range lines {
		lines[i].Subject = renumbered(lines[i].Subject, slot)
		lines[i].Value = renumbered(lines[i].Value, slot)
	}
	return order
}

// renumbered is s with the mark of each upstream i that has a slot
// (slot[i] > 0) replaced by UpstreamRef(slot[i]); a mark of another
// upstream, or a stray mark character, stays as it is.
func renumbered(s string, slot []int) string {
	i := strings.Index(s, markOpen)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for ; i >= 0; i = strings.Index(s, markOpen) {
		b.WriteString(s[:i])
		rest := s[i+len(markOpen):]
		j := strings.Index(rest, markClose)
		if n, ok := markIndex(rest, j); ok && n < len(slot) && slot[n] > 0 {
			b.WriteString(UpstreamRef(slot[n]))
			s = rest[j+len(markClose):]
			continue
		}
		b.WriteString(markOpen)
		s = rest
	}
	b.WriteString(s)
	return b.String()
}

// markIndex is the upstream index that rest[:j] writes as upstreamMarks
// writes it (strconv.Itoa); false for anything else, or no closing mark
// (j < 0).
func markIndex(rest string, j int) (int, bool) {
	if j < 0 {
		return 0, false
	}
	n, err := strconv.Atoi(rest[:j])
	return n, err == nil && n >= 0 && strconv.Itoa(n) == rest[:j]
}

// UpstreamRef is how a key's attribute, input and file lines name the
// upstream on dep line n.
func UpstreamRef(n int) string { return "${upstream:" + strconv.Itoa(n) + "}" }
