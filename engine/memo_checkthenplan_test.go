package engine_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kilnbuild/kiln/engine"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/providers"
)

// TestQuickCheckThenPlanAnswersBoth: on a built pipeline QuickCheckThenPlan
// says up to date; after an input edit it gives, from the same read of the
// memo, the plan the full path makes (the edited node rebuilds, its
// dependent may change); with a remote cache it makes no plan after the
// edit, and says why.
func TestQuickCheckThenPlanAnswersBoth(t *testing.T) {
	dir := pipeline(t, map[string]string{"pipeline.hcl": twoSteps, "in.txt": "hello\n"})
	apply(t, open(t, dir, nil))
	o := engine.Options{Path: dir, Kinds: providers.All()}
	if n, upToDate, q := engine.QuickCheckThenPlan(context.Background(), o); !upToDate || n != 2 || q != nil {
		t.Fatalf("after the apply: %d nodes, up to date %v, plan %v; want 2 nodes up to date and no plan", n, upToDate, q)
	}

	write(t, filepath.Join(dir, "in.txt"), "edited\n")
	var said []string
	o.DebugPlan = func(s string) { said = append(said, s) }
	n, upToDate, q := engine.QuickCheckThenPlan(context.Background(), o)
	if upToDate || n != 0 || q == nil {
		t.Fatalf("after the edit: %d nodes, up to date %v, plan %v; want the plan after the edit (said: %q)", n, upToDate, q, said)
	}
	got := map[string]plan.Action{}
	for _, d := range q.Plan.Changes {
		got[d.Node.Addr.String()] = d.Action
	}
	if got["exec.first"] != plan.Rebuild || got["exec.second"] != plan.Maybe {
		t.Fatalf("plan after the edit: %v; want exec.first to rebuild and exec.second maybe", got)
	}
	if len(said) != 2 || !strings.Contains(said[0], "the no-change check was not used: exec.first: input in.txt changed") ||
		!strings.Contains(said[1], "the plan after an edit: 2 of 2 nodes decided again") {
		t.Fatalf("KILN_DEBUG_PLAN said %q; want the check's miss, then the plan after the edit", said)
	}

	said = nil
	o.CacheURL = "http://127.0.0.1:1/cache"
	if _, upToDate, q := engine.QuickCheckThenPlan(context.Background(), o); upToDate || q != nil {
		t.Fatalf("with a remote cache: up to date %v, plan %v; want the full plan", upToDate, q)
	}
	if len(said) != 2 || !strings.Contains(said[1], "the plan after an edit was not used: a remote cache") {
		t.Fatalf("with a remote cache, KILN_DEBUG_PLAN said %q; want why the plan after an edit was not made", said)
	}
}
