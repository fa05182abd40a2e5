// Package review compares a pipeline between two git revisions for code
// review (kiln diff): which nodes a change touches directly and how, which
// it invalidates downstream, which it adds and removes, and what rerunning
// them is estimated to cost from the durations recorded in state.
//
// Nothing runs and nothing in the repository changes: a committed revision
// is materialised with git archive into a temporary folder (removed
// afterwards); the working tree is read as it is. Both versions are loaded
// with the same variables and each with its own kiln.lock.hcl, and each
// node's static key lines (plan.StaticLines: configuration, lock pins,
// input, key-file and read files, env() reads, dependencies by position)
// are compared. Renames are paired first (moved blocks, then a node that
// left with the one of its kind that came with identical lines), structured
// values are compared path by path, resources are a cost change, and every
// file that enters a key is listed. Those lines hold no absolute paths of the
// pipeline or state folder, so versions in different folders compare
// equal when nothing changed. A node is changed when its lines differ,
// added or removed when only one version has it, and invalidated when it
// depends, directly or not, on a changed or added node of the new version.
// The cost is read from the working tree's state: the last successful
// duration of every node that would rerun, and per resource the duration
// weighted by what the node declares; nodes that never ran are listed, not
// guessed.
//
// The Report is pure data with a versioned JSON schema (FormatVersion,
// docs/review.md); the text and Markdown views (engine/render's ReviewText
// and ReviewMarkdown) render from it, so they cannot disagree. Values of sensitive string
// variables are masked wherever a reason would quote them. Compare is safe
// to call concurrently: it shares nothing but the read-only state.
package review
