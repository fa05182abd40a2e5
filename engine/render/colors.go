package render

import (
	"fmt"

	"github.com/fatih/color"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/render/palette"
)

// Colors paints what kiln prints; a zero value paints nothing. Whether it
// is on is the CLI's decision (a terminal, no -no-color, no NO_COLOR, TERM
// not dumb); an action's colour comes from engine/render/palette, so a
// symbol has one colour everywhere.
type Colors struct{ On bool }

// action paints text in the terminal colour of the plan action whose
// symbol is sym (engine/render/palette).
func (c Colors) action(sym string) func(format string, a ...any) string {
	attr := palette.Action(plan.Action([]rune(sym + " ")[0])).Terminal
	if !c.On || attr == 0 {
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
