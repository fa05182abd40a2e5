package render

import (
	"fmt"

	"github.com/fatih/color"
	"github.com/kilnbuild/kiln/engine/plan"
)

// Colors paints what kiln prints; a zero value paints nothing. Whether it
// is on is the CLI's decision (a terminal, no -no-color, no NO_COLOR, TERM
// not dumb); every view takes its colours from here, so a symbol has one
// colour everywhere.
type Colors struct{ On bool }

// actionColors is the colour of each plan symbol.
var actionColors = map[plan.Action]color.Attribute{
	plan.Create:  color.FgGreen,
	plan.Rebuild: color.FgYellow,
	plan.Maybe:   color.FgCyan,
	plan.Restore: color.FgBlue,
	plan.Repair:  color.FgRed,
	plan.Forget:  color.FgRed,
	plan.Start:   color.FgMagenta,
	plan.Fetch:   color.FgBlue,
}

func (c Colors) action(sym string) func(format string, a ...any) string {
	attr, ok := actionColors[plan.Action([]rune(sym + " ")[0])]
	if !c.On || !ok {
		return fmt.Sprintf
	}
	c2 := color.New(attr, color.Bold)
	c2.EnableColor()
	return c2.Sprintf
}

func (c Colors) paint(s string, attrs ...color.Attribute) string {
	if !c.On {
		return s
	}
	d := color.New(attrs...)
	d.EnableColor()
	return d.Sprint(s)
}

func (c Colors) dim(s string) string  { return c.paint(s, color.Faint) }
func (c Colors) bold(s string) string { return c.paint(s, color.Bold) }
func (c Colors) red(s string) string  { return c.paint(s, color.FgRed, color.Bold) }
