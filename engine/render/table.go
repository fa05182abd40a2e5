package render

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Table writes rows under a header line, each column as wide as its widest
// cell, columns two spaces apart and no trailing blanks: the shape of
// kubectl's and docker's lists, readable by people and by awk.
func Table(w io.Writer, header []string, rows [][]string) {
	widths := make([]int, len(header))
	for _, r := range append([][]string{header}, rows...) {
		for i, cell := range r {
			if i < len(widths) {
				widths[i] = max(widths[i], utf8.RuneCountInString(cell))
			}
		}
	}
	for _, r := range append([][]string{header}, rows...) {
		var b strings.Builder
		for i, cell := range r {
			if i == len(r)-1 {
				b.WriteString(cell)
				break
			}
			b.WriteString(cell)
			b.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell)+2))
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}
