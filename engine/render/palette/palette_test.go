package palette

import (
	"testing"

	"github.com/kilnbuild/kiln/engine/plan"
)

// Every action but no-op has a terminal colour, and an action's class
// paints as its picture style.
func TestEveryActionIsPainted(t *testing.T) {
	for _, a := range []plan.Action{plan.NoOp, plan.Create, plan.Rebuild, plan.Maybe, plan.Restore, plan.Repair, plan.Start, plan.Forget, plan.Fetch} {
		s, ok := actions[a]
		if !ok {
			t.Errorf("%q (%s) has no row in the palette", string(a), a.Word())
			continue
		}
		if a != plan.NoOp && s.Terminal == 0 {
			t.Errorf("%s has no terminal colour", a.Word())
		}
		want := s.Picture
		if want == "" {
			want = Neutral
		}
		if got := Class(ClassName(a)); got != want {
			t.Errorf("Class(%q) = %q, want %q", ClassName(a), got, want)
		}
	}
	if got := Class("failed"); got != outcomes["failed"] {
		t.Errorf("Class(failed) = %q", got)
	}
	if got := Class("anything else"); got != Neutral {
		t.Errorf("Class of an unknown class = %q, want Neutral", got)
	}
}
