// Package render turns kiln's results into what people and programs read:
// the plan as text, JSON or Markdown, diagnostics with source snippets, and
// the apply's progress. The human plan text is rendered from the same JSON
// model that -json prints, so the two cannot drift apart.
package render
