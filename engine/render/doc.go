// Package render turns kiln's results into what people and programs read:
// the plan as text, JSON or Markdown, diagnostics with source snippets, the
// apply's progress (a live status on a terminal, timestamped lines and
// heartbeats elsewhere), records, outputs, tables, and the language
// reference (kiln help and docs/language.md) from the schemas in
// engine/schema. The human plan text is rendered from the same JSON model
// that -json prints, so the two cannot drift apart; colours and the plan's
// symbols come from one table (colors.go).
//
// Terminal text is measured in columns, not bytes (golang.org/x/text/width
// tells wide East Asian characters apart), so the live status can cut each
// line to the terminal's width and erase exactly what it drew.
package render
