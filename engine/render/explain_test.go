package render

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/state"
	"github.com/kilnbuild/kiln/providers/exec"
)

func TestExplainMarksChangedAddedAndGoneLines(t *testing.T) {
	rec := &state.Record{Key: "oldkey", Digest: "d", KeyLines: []hash.Line{
		{Label: "format", Value: "kiln-key-1"},
		{Label: "kind", Subject: "exec", Value: "1"},
		{Label: "attr", Subject: "command", Value: `"make"`},
		{Label: "input", Subject: "data/a.txt", Value: "111"},
		{Label: "dep", Subject: "1", Value: "333", Note: "exec.gone"},
	}}
	d := &plan.Decision{
		Node: node("build"), Kind: exec.New(), Action: plan.Rebuild, Record: rec, Key: "newkey",
		Reasons: []plan.Reason{{Kind: "attribute", Subject: "command", Old: `"make"`, New: `"make all"`}},
		KeyLines: []hash.Line{
			{Label: "format", Value: "kiln-key-1"},
			{Label: "kind", Subject: "exec", Value: "1"},
			{Label: "attr", Subject: "command", Value: `"make all"`},
			{Label: "input", Subject: "data/a.txt", Value: "111"},
			{Label: "input", Subject: "data/b.txt", Value: "222"},
		},
	}
	var b bytes.Buffer
	Explain(&b, d, Colors{})
	want := `exec.build: rebuild
  attribute command changed: "make" → "make all"

key newkey (recorded oldkey)
    format kiln-key-1
    kind exec 1
  ~ attr command "make all"
      was: "make"
    input data/a.txt 111
  + input data/b.txt 222
  - dep 1 333 # exec.gone
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("explain (-want +got):\n%s", diff)
	}
}

func TestExplainUpToDateWithoutRecord(t *testing.T) {
	d := &plan.Decision{Node: node("a"), Kind: exec.New(), Action: plan.Create, Key: "k",
		Reasons: []plan.Reason{{Kind: "new"}}, KeyLines: []hash.Line{{Label: "format", Value: "kiln-key-1"}, {Label: "attr", Subject: "command", Value: `"true"`}}}
	var b bytes.Buffer
	Explain(&b, d, Colors{})
	want := "exec.a: create\n  never built\n\nkey k\n    format kiln-key-1\n    attr command \"true\"\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("explain (-want +got):\n%s", diff)
	}

	d = &plan.Decision{Node: node("a"), Kind: exec.New(), Action: plan.NoOp, Key: "k", Record: &state.Record{Key: "k", Digest: "x", KeyLines: []hash.Line{{Label: "format", Value: "kiln-key-1"}}},
		KeyLines: []hash.Line{{Label: "format", Value: "kiln-key-1"}}}
	b.Reset()
	Explain(&b, d, Colors{})
	want = "exec.a: up to date\n\nkey k (recorded k)\n    format kiln-key-1\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("explain (-want +got):\n%s", diff)
	}
}

func TestExplainUnknownKey(t *testing.T) {
	d := &plan.Decision{Node: node("train"), Kind: exec.New(), Action: plan.Maybe,
		Record:  &state.Record{Key: "old", Digest: "d", KeyLines: []hash.Line{{Label: "format", Value: "kiln-key-1"}, {Label: "dep", Subject: "exec.prep", Value: "111"}}},
		Reasons: []plan.Reason{{Kind: "upstream_runs", Subject: "exec.prep"}}}
	var b bytes.Buffer
	Explain(&b, d, Colors{})
	want := `exec.train: maybe
  upstream exec.prep will run; decided once its digest is known

The key is not known yet: an upstream node runs first. Recorded key lines:
    format kiln-key-1
    dep exec.prep 111
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("explain (-want +got):\n%s", diff)
	}
}
