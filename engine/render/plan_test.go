package render

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/state"
	"github.com/kilnbuild/kiln/providers/exec"
)

func node(name string, deps ...string) *config.Node {
	n := &config.Node{Addr: addr.Node{Kind: "exec", Name: name}, CountIdx: -1}
	for _, d := range deps {
		n.Deps = append(n.Deps, addr.Node{Kind: "exec", Name: d})
	}
	return n
}

// handPlan is a plan with one node of each action an exec node can take.
func handPlan() *plan.Plan {
	k := exec.New()
	good := &state.Record{Digest: "d1", Duration: 90 * time.Second}
	return &plan.Plan{
		Changes: []*plan.Decision{
			{Node: node("fetch"), Kind: k, Action: plan.NoOp, Record: good, Key: "k0"},
			{Node: node("prep", "fetch"), Kind: k, Action: plan.Rebuild, Record: good, Key: "k1",
				Reasons: []plan.Reason{{Kind: "input", Subject: "data.txt", Old: "aaaaaaaaaaaa", New: "bbbbbbbbbbbb"}}},
			{Node: node("train", "prep"), Kind: k, Action: plan.Maybe, Record: good,
				Reasons: []plan.Reason{{Kind: "upstream_runs", Subject: "exec.prep"}}},
			{Node: node("eval"), Kind: k, Action: plan.Create, Key: "k3",
				Reasons: []plan.Reason{{Kind: "resume", Detail: ".kiln/store/k3/k3-0123456789"}, {Kind: "new"}, {Kind: "failed", Detail: "exit status 3"}}},
			{Node: node("old"), Kind: k, Action: plan.Restore, Record: good, Key: "k4",
				Reasons: []plan.Reason{{Kind: "restore"}, {Kind: "attribute", Subject: "command", Old: `"a | b"`, New: `"a"`}}},
			{Node: node("report"), Kind: k, Action: plan.Repair, Record: good, Key: "k5", Blocked: "host.npu is unavailable",
				Reasons: []plan.Reason{{Kind: "drift", Detail: "digest 111111111111 → 222222222222"}}},
		},
		Forget: []string{"exec.gone"},
	}
}

func TestModelPlan(t *testing.T) {
	m := ModelPlan(handPlan(), "pipeline.hcl", StateJSON{Lineage: "l", Serial: 3}, "0.1.0")
	wantSummary := map[string]int{"create": 1, "rebuild": 1, "maybe": 1, "restore": 1, "repair": 1, "start": 0, "fetch": 0, "forget": 1, "no-op": 1}
	if diff := cmp.Diff(wantSummary, m.Summary); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	var resumed []string
	for _, c := range m.Changes {
		if c.Resume {
			resumed = append(resumed, c.Address)
		}
	}
	if diff := cmp.Diff([]string{"exec.eval"}, resumed); diff != "" {
		t.Errorf("resumed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]BlockedJSON{{Address: "exec.report", Reason: "host.npu is unavailable", Cause: "exec.report"}}, m.Blocked); diff != "" {
		t.Errorf("blocked (-want +got):\n%s", diff)
	}
	prep := m.Changes[1]
	if diff := cmp.Diff([]string{"exec.fetch"}, prep.DependsOn); diff != "" {
		t.Errorf("depends_on (-want +got):\n%s", diff)
	}
	if prep.LastDuration != 90 || prep.Reasons[0].Message != "input data.txt changed: aaaaaaaaaaaa → bbbbbbbbbbbb" {
		t.Errorf("prep: %+v", prep)
	}
}

func TestPlanText(t *testing.T) {
	var b bytes.Buffer
	PlanText(&b, ModelPlan(handPlan(), "pipeline.hcl", StateJSON{}, "0.1.0"), Colors{})
	want := `~ exec.prep (rebuild)
    input data.txt changed: aaaaaaaaaaaa → bbbbbbbbbbbb
? exec.train (maybe)
    upstream exec.prep will run; decided once its digest is known
+ exec.eval (resume)
    an interrupted run of the same key will resume in .kiln/store/k3/k3-0123456789
    never built
    failed last time: exit status 3
< exec.old (restore)
    an earlier result with this key is in the store
    attribute command changed: "a | b" → "a"
! exec.report (repair)
    outputs changed outside kiln: digest 111111111111 → 222222222222
    cannot run here (see below)
- exec.gone (forget)
    no longer in the configuration; its results stay in the store until kiln gc

1 node cannot run on this machine:

  exec.report:
      host.npu is unavailable
    blocks 1 node: exec.report

Plan: 1 to create, 1 to rebuild, 1 maybe, 1 to restore, 1 to repair, 1 to forget, 1 up to date.
Symbols: + create  ~ rebuild  ? maybe  < restore  ! repair  - forget
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("plan text (-want +got):\n%s", diff)
	}
}

func TestPlanTextNoChanges(t *testing.T) {
	pl := &plan.Plan{Changes: []*plan.Decision{
		{Node: node("a"), Kind: exec.New(), Action: plan.NoOp},
		{Node: node("b"), Kind: exec.New(), Action: plan.NoOp},
	}}
	var b bytes.Buffer
	PlanText(&b, ModelPlan(pl, "p", StateJSON{}, "v"), Colors{})
	if got, want := b.String(), "No changes. 2 nodes up to date.\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestPlanTextColors(t *testing.T) {
	m := ModelPlan(handPlan(), "p", StateJSON{}, "v")
	var plain, coloured bytes.Buffer
	PlanText(&plain, m, Colors{})
	PlanText(&coloured, m, Colors{On: true})
	if strings.Contains(plain.String(), "\x1b[") {
		t.Error("plain text holds escape sequences")
	}
	if !strings.Contains(coloured.String(), "\x1b[") {
		t.Error("coloured text holds no escape sequences")
	}
	strip := func(s string) string {
		var out strings.Builder
		for i := 0; i < len(s); i++ {
			if s[i] == 0x1b {
				for i < len(s) && s[i] != 'm' {
					i++
				}
				continue
			}
			out.WriteByte(s[i])
		}
		return out.String()
	}
	if diff := cmp.Diff(plain.String(), strip(coloured.String())); diff != "" {
		t.Errorf("colours change the text (-plain +coloured):\n%s", diff)
	}
}

func TestPlanMarkdown(t *testing.T) {
	var b bytes.Buffer
	PlanMarkdown(&b, ModelPlan(handPlan(), "pipeline.hcl", StateJSON{}, "0.1.0"))
	want := "### kiln plan\n\n" +
		"Plan: 1 to create, 1 to rebuild, 1 maybe, 1 to restore, 1 to repair, 1 to forget, 1 up to date.\n\n" +
		"| | node | action | why |\n" +
		"|---|---|---|---|\n" +
		"| `~` | `exec.prep` | rebuild | input data.txt changed: aaaaaaaaaaaa → bbbbbbbbbbbb |\n" +
		"| `?` | `exec.train` | maybe | upstream exec.prep will run; decided once its digest is known |\n" +
		"| `+` | `exec.eval` | create | an interrupted run of the same key will resume in .kiln/store/k3/k3-0123456789<br>never built<br>failed last time: exit status 3 |\n" +
		"| `<` | `exec.old` | restore | an earlier result with this key is in the store<br>attribute command changed: \"a \\| b\" → \"a\" |\n" +
		"| `!` | `exec.report` | repair | outputs changed outside kiln: digest 111111111111 → 222222222222<br>**cannot run here:** host.npu is unavailable |\n" +
		"| `-` | `exec.gone` | forget | no longer in the configuration |\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("markdown (-want +got):\n%s", diff)
	}
}

func TestPlanMarkdownNoChanges(t *testing.T) {
	var b bytes.Buffer
	PlanMarkdown(&b, ModelPlan(&plan.Plan{Changes: []*plan.Decision{{Node: node("a"), Kind: exec.New(), Action: plan.NoOp}}}, "p", StateJSON{}, "v"))
	want := "### kiln plan\n\nPlan: 1 up to date.\n\nNothing to do: every node is up to date.\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("markdown (-want +got):\n%s", diff)
	}
}
