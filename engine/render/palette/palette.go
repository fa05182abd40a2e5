// Package palette is the one table of how kiln paints what it shows: each
// plan action's colour in a terminal, in DOT and in pictures (the fill and
// stroke of Mermaid classes and of the HTML report), and the picture style
// of an apply's outcomes. An action's symbol is its value (plan.Action) and
// its word Action.Word(). Every view takes its colours from here, so an
// action looks the same in kiln plan, kiln graph, kiln diff's Mermaid graph
// and kiln report.
package palette

import (
	"github.com/fatih/color"
	"github.com/kilnbuild/kiln/engine/plan"
)

// Style is how one plan action is painted.
type Style struct {
	Terminal color.Attribute // 0: not coloured
	DOT      string          // a Graphviz colour name; "": not coloured
	Picture  string          // a Mermaid class style: "fill:#d4f7d4,stroke:#2e7d32"
}

var actions = map[plan.Action]Style{
	plan.Create:  {color.FgGreen, "darkgreen", "fill:#d4f7d4,stroke:#2e7d32"},
	plan.Rebuild: {color.FgYellow, "darkorange", "fill:#fff3c4,stroke:#b28704"},
	plan.Maybe:   {color.FgCyan, "cadetblue", "fill:#fffbe6,stroke:#b28704,stroke-dasharray:4 2"},
	plan.Restore: {color.FgBlue, "blue", "fill:#dbeafe,stroke:#1d4ed8"},
	plan.Repair:  {color.FgRed, "red", "fill:#fde2e2,stroke:#b91c1c"},
	plan.Forget:  {color.FgRed, "red", "fill:#eeeeee,stroke:#757575,stroke-dasharray:4 2"},
	plan.Start:   {color.FgMagenta, "purple", "fill:#ede9fe,stroke:#6d28d9"},
	plan.Fetch:   {color.FgBlue, "", ""},
	plan.NoOp:    {0, "", "fill:#ffffff,stroke:#9e9e9e"},
}

// outcomes are the picture styles of the classes of an apply's pictures
// that are not actions.
var outcomes = map[string]string{
	"failed":   "fill:#fca5a5,stroke:#7f1d1d",
	"skipped":  "fill:#f5f5f5,stroke:#9e9e9e,stroke-dasharray:2 2",
	"blocked":  "fill:#fde68a,stroke:#92400e",
	"running":  "fill:#bfdbfe,stroke:#1e3a8a",
	"finished": "fill:#bbf7d0,stroke:#14532d",
}

// Neutral is the picture style of any other class.
const Neutral = "fill:#f0f0f0,stroke:#616161"

// Action is how a is painted; the zero Style for an unknown action.
func Action(a plan.Action) Style { return actions[a] }

// ClassName is the picture class of an action: its word, "noop" for no-op.
func ClassName(a plan.Action) string {
	if a == plan.NoOp {
		return "noop"
	}
	return a.Word()
}

// Class is the picture style of a class: an action's ClassName ("create",
// "noop") or an outcome ("failed", "skipped", "blocked", "running",
// "finished"); Neutral for any other.
func Class(class string) string {
	for a, s := range actions {
		if ClassName(a) == class && s.Picture != "" {
			return s.Picture
		}
	}
	if s, ok := outcomes[class]; ok {
		return s
	}
	return Neutral
}
