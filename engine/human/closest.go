package human

import "strings"

// Closest returns the option closest to s, or "" when none is close: one s
// is a prefix of (s at least two letters long), or one at most a third of
// its length (and at least 1, at most 3) edits away, where swapping two
// neighbouring letters is one edit. Ties go to the first option in the
// list's order.
func Closest(s string, options []string) string {
	if s == "" {
		return ""
	}
	best, bestDist := "", 0
	for _, o := range options {
		if o == s {
			return o
		}
		d := editDistance(s, o)
		if strings.HasPrefix(o, s) && len(s) >= 2 {
			d = 1
		}
		limit := max(1, min(3, len(o)/3))
		if d <= limit && (best == "" || d < bestDist) {
			best, bestDist = o, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance: insertions,
// deletions, substitutions and swaps of neighbouring letters cost 1 each.
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}
