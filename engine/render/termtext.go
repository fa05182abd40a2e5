package render

import (
	"fmt"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/width"
)

// textWidth is how many terminal columns s takes: East Asian wide and
// fullwidth characters take two, combining marks none.
func textWidth(s string) int {
	n := 0
	for _, r := range s {
		n += runeWidth(r)
	}
	return n
}

func runeWidth(r rune) int {
	switch {
	case unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) || r == '\u200b':
		return 0
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

// fit cuts s to at most cols columns, ending with "…" when it cut.
func fit(s string, cols int) string {
	if cols <= 0 {
		return ""
	}
	if textWidth(s) <= cols {
		return s
	}
	var b strings.Builder
	used := 0
	for _, r := range s {
		w := runeWidth(r)
		if used+w > cols-1 {
			break
		}
		b.WriteRune(r)
		used += w
	}
	return b.String() + "…"
}

// plainText makes a line a program printed safe to draw inside the status:
// escape sequences (colours, cursor moves) and control characters are
// dropped, tabs become spaces, and a carriage return keeps what follows it,
// as a terminal would show a progress bar's last state.
func plainText(s string) string {
	if i := strings.LastIndexByte(strings.TrimRight(s, "\r"), '\r'); i >= 0 {
		s = s[i+1:]
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == 0x1b:
			i = skipEscape(s, i)
		case c == '\t':
			b.WriteString("    ")
		case c < 0x20 || c == 0x7f:
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String())
}

// skipEscape returns the index of the last byte of the escape sequence
// starting at s[i] (CSI "ESC [ ... final", OSC "ESC ] ... BEL or ST", or
// a two-byte "ESC x").
func skipEscape(s string, i int) int {
	if i+1 >= len(s) {
		return i
	}
	switch s[i+1] {
	case '[':
		for j := i + 2; j < len(s); j++ {
			if s[j] >= 0x40 && s[j] <= 0x7e {
				return j
			}
		}
		return len(s) - 1
	case ']':
		for j := i + 2; j < len(s); j++ {
			if s[j] == 0x07 {
				return j
			}
			if s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\' {
				return j + 1
			}
		}
		return len(s) - 1
	}
	return i + 1
}

// clock writes a duration as a live status shows it: 0:07, 2:30, 1:02:03.
// The width only changes at an hour, so columns do not jitter.
func clock(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int64(d / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}
