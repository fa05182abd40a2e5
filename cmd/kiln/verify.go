package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"

	"github.com/kilnbuild/kiln/engine/render"
)

// KILN_PLAN_VERIFY=1 makes every answer the quick path gives (the
// no-change check, the plan after an edit) be decided again by the full
// plan, and fails the command on any difference: the quick path may only
// save time, and this is how a change to it is caught. Agreement is said
// on standard error with the number of nodes verified, or, when
// KILN_PLAN_VERIFY_LOG names a file, appended to that file (the test
// suite counts them there without changing what commands print). It also
// makes every node that engine/config evaluates without HCL be evaluated
// with HCL too, and a difference an error (engine/config, direct.go).

// verifying reports whether quick answers are to be checked.
func (c *cli) verifying() bool { return c.getenv("KILN_PLAN_VERIFY") != "" }

// verifyNoChanges checks the no-change check's answer (nodes up to date)
// against the full plan; false when they differ, after saying how.
func (c *cli) verifyNoChanges(p *pipelineArgs, path string, nodes int) bool {
	full, ok := c.fullModel(p, path)
	if !ok {
		return false
	}
	var differ []string
	if full.HasChanges() {
		for _, ch := range full.Changes {
			if ch.Action != "no-op" {
				differ = append(differ, fmt.Sprintf("%s: the full plan says %s", ch.Address, ch.Action))
			}
		}
		if len(full.Moved) > 0 {
			differ = append(differ, fmt.Sprintf("the full plan moves %d addresses", len(full.Moved)))
		}
	}
	if len(full.Changes) != nodes {
		differ = append(differ, fmt.Sprintf("the no-change check counted %d nodes, the full plan %d", nodes, len(full.Changes)))
	}
	return c.verified("the no-change check", len(full.Changes), differ)
}

// verifyPlan checks a quick plan against the full plan, node by node: the
// same action, key, reasons and upstreams, and the same summary.
func (c *cli) verifyPlan(p *pipelineArgs, path string, quick *render.PlanJSON) bool {
	full, ok := c.fullModel(p, path)
	if !ok {
		return false
	}
	var differ []string
	byAddr := map[string]render.ChangeJSON{}
	for _, ch := range full.Changes {
		byAddr[ch.Address] = ch
	}
	for _, q := range quick.Changes {
		f, ok := byAddr[q.Address]
		if !ok {
			differ = append(differ, q.Address+": not in the full plan")
			continue
		}
		delete(byAddr, q.Address)
		if a, b := decisionOf(q), decisionOf(f); a != b {
			differ = append(differ, fmt.Sprintf("%s: quick %s, full %s", q.Address, a, b))
		}
	}
	for a := range byAddr {
		differ = append(differ, a+": not in the quick plan")
	}
	if a, b := jsonText(quick.Summary), jsonText(full.Summary); a != b {
		differ = append(differ, fmt.Sprintf("summary: quick %s, full %s", a, b))
	}
	slices.Sort(differ)
	return c.verified("the quick plan", len(full.Changes), differ)
}

// decisionOf is what must agree of one node's decision, as text.
func decisionOf(ch render.ChangeJSON) string {
	return jsonText(struct {
		Action, Key string
		Reasons     []render.ReasonJSON
		DependsOn   []string
		Resume      bool
		TempRemoved bool
		Blocked     string
	}{ch.Action, ch.Key, ch.Reasons, ch.DependsOn, ch.Resume, ch.TempRemoved, ch.Blocked})
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// fullModel is the full plan of the pipeline, as plan's views read it.
func (c *cli) fullModel(p *pipelineArgs, path string) (*render.PlanJSON, bool) {
	w, ok := c.open(p, path, decision{full: true})
	if !ok {
		return nil, false
	}
	pl, diags := w.Plan(context.Background())
	c.diags(w, diags, p.noColor)
	if diags.HasErrors() {
		return nil, false
	}
	lineage, serial := w.StateVersion()
	return render.ModelPlan(pl, w.Root(), render.StateJSON{Lineage: lineage, Serial: serial}, "verify"), true
}

// verified says the outcome of one verification; false when the answers
// differ.
func (c *cli) verified(what string, nodes int, differ []string) bool {
	if len(differ) > 0 {
		fmt.Fprintf(c.stderr, "kiln: KILN_PLAN_VERIFY: %s and the full plan differ on %d of %d nodes:\n", what, len(differ), nodes)
		for _, d := range differ {
			fmt.Fprintln(c.stderr, "    "+d)
		}
		return false
	}
	line := fmt.Sprintf("kiln: KILN_PLAN_VERIFY: %s agrees with the full plan on all %d nodes\n", what, nodes)
	if log := c.getenv("KILN_PLAN_VERIFY_LOG"); log != "" {
		f, err := os.OpenFile(log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err == nil {
			_, err = f.WriteString(line)
			err = firstErr(err, f.Close())
		}
		if err == nil {
			return true
		}
	}
	fmt.Fprint(c.stderr, line)
	return true
}
