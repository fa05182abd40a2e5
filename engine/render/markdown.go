package render

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Markdown views (the plan, kiln diff, kiln report) go into pull-request
// comments, where GitHub and GitLab render them; every string in them that a
// pipeline or a run controls — addresses and for_each keys, metric names,
// reasons, errors, paths, revisions — goes through MarkdownText or
// MarkdownCode, so that it shows as the text it is: never as HTML (a
// <script> or an <img onerror=...> in a key), a link, an image, emphasis,
// math, a heading, or a cell break of the table it sits in.

// MarkdownText makes s plain text inside a line of Markdown — a table cell,
// or after the marker of a list item: every character that could start
// inline markup is escaped with a backslash, which CommonMark allows before
// any ASCII punctuation and renders as the character alone, and a line
// break becomes a space. (No view starts a line with it, where a # or a -
// would begin a block; a table cell holds no blocks.)
func MarkdownText(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
	var b strings.Builder
	for i, r := range s {
		if markdownSpecial(s, i, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// markdownSpecial reports whether r at byte i of s must be escaped: the
// characters of HTML and entities (< > &), links and images ([ ]), code
// (`), emphasis and strikethrough where they can open or close it (* and ~
// unless between spaces, _ unless between two letters or digits), math
// ($), table cells (|) and the escape itself.
func markdownSpecial(s string, i int, r rune) bool {
	before, _ := utf8.DecodeLastRuneInString(s[:i])
	after, _ := utf8.DecodeRuneInString(s[i+1:])
	first, last := i == 0, i+1 == len(s)
	switch r {
	case '\\', '`', '[', ']', '<', '>', '&', '|', '$':
		return true
	case '*', '~':
		// Between spaces (a plan symbol, "a * b") it neither opens nor
		// closes anything.
		return !(first || unicode.IsSpace(before)) || !(last || unicode.IsSpace(after))
	case '_':
		return first || last || !wordRune(before) || !wordRune(after)
	}
	return false
}

func wordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// MarkdownCode writes s as inline code, safe in a table cell: a code span
// shows its content literally (no HTML, no emphasis), so only its own
// delimiter needs care — the span is fenced with one backtick more than the
// longest run of backticks in s — and a | is escaped, as a table cell needs
// even inside code.
func MarkdownCode(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "|", `\|`).Replace(s)
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || len(s) > 1 && s[0] == ' ' && s[len(s)-1] == ' ' {
		// A space on each side is stripped again by the renderer, so a
		// backtick at an end does not join the fence.
		s = " " + s + " "
	}
	return fence + s + fence
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	most, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] != c {
			run = 0
			continue
		}
		run++
		most = max(most, run)
	}
	return most
}
