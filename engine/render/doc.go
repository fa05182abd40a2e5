// Package render turns kiln's results into what people and programs read:
// the plan as text, JSON or Markdown, diagnostics with source snippets, the
// apply's progress and closing line, explain, records and the state list,
// lock resolutions, check results, gc, destroy and recovered runs, kiln
// graph's DOT and Mermaid, kiln diff's report as text and Markdown, and the
// language reference. The CLI parses flags, calls the engine and hands the
// result to a function here; nothing else in kiln prints.
//
// The human plan text is rendered from the same JSON model that -json
// prints, so the two cannot drift apart. Every view paints an action with
// the colours of engine/render/palette, writes counts and sizes with
// engine/human, and Markdown through MarkdownText and MarkdownCode.
//
// Markdown goes into pull requests, where GitHub and GitLab render it, and
// most of what it shows comes from the pipeline or the run (addresses with
// any for_each key, metric names, reasons, errors, revisions): every such
// string goes through MarkdownCode (a code span its own backticks cannot
// end) or MarkdownText (each character that could start HTML, an entity, a
// link, emphasis, math or a table cell escaped with a backslash), so it
// shows as text, never as markup. Mermaid labels are escaped by
// engine/graph.
package render
