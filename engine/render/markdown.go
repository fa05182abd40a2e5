package render

import "strings"

// MarkdownText makes text safe in a Markdown table cell or list item.
func MarkdownText(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}

// MarkdownCode writes s as inline code, safe in a table cell.
func MarkdownCode(s string) string {
	s = MarkdownText(s)
	if strings.Contains(s, "`") {
		return "`` " + s + " ``"
	}
	return "`" + s + "`"
}
