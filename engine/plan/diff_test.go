package plan

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/hash"
)

func TestDiffKeyLines(t *testing.T) {
	d1 := strings.Repeat("1", 64)
	d2 := strings.Repeat("2", 64)
	base := fixture(
		"format kiln-key-1",
		"kind exec 1",
		`attr command "make"`,
		`attr dir "sub"`,
		"input data/a.txt "+d1,
		"input data/b.txt "+d1,
		"file patches/x.patch "+d1,
		"dep exec.up "+d1,
		"fact npus 8",
		"env TOKEN 111111111111",
	)
	replace := func(old, cur string) []hash.Line {
		out := append([]hash.Line(nil), base...)
		for i, l := range out {
			if l == fixture(old)[0] {
				out[i] = fixture(cur)[0]
			}
		}
		return out
	}
	without := func(drop string) []hash.Line {
		var out []hash.Line
		for _, l := range base {
			if l != fixture(drop)[0] {
				out = append(out, l)
			}
		}
		return out
	}
	with := func(add string) []hash.Line { return append(append([]hash.Line(nil), base...), fixture(add)...) }
	tests := []struct {
		name string
		cur  []hash.Line
		want []Reason
	}{
		{"same", base, nil},
		{"attribute", replace(`attr command "make"`, `attr command "make all"`),
			[]Reason{{Kind: "attribute", Subject: "command", Old: `"make"`, New: `"make all"`}}},
		{"attribute added", with(`attr env {"A":"1"}`),
			[]Reason{{Kind: "attribute", Subject: "env", Old: "(unset)", New: `{"A":"1"}`}}},
		{"attribute removed", without(`attr dir "sub"`),
			[]Reason{{Kind: "attribute", Subject: "dir", Old: `"sub"`, New: "(unset)"}}},
		{"input", replace("input data/a.txt "+d1, "input data/a.txt "+d2),
			[]Reason{{Kind: "input", Subject: "data/a.txt", Old: d1[:12], New: d2[:12]}}},
		{"input added", with("input data/c.txt " + d1),
			[]Reason{{Kind: "input_added", Subject: "data/c.txt"}}},
		{"input removed", without("input data/b.txt " + d1),
			[]Reason{{Kind: "input_removed", Subject: "data/b.txt"}}},
		{"upstream", replace("dep exec.up "+d1, "dep exec.up "+d2),
			[]Reason{{Kind: "upstream", Subject: "exec.up", Old: d1[:12], New: d2[:12]}}},
		{"upstream added", with("dep exec.other " + d1),
			[]Reason{{Kind: "upstream_added", Subject: "exec.other"}}},
		{"upstream removed", without("dep exec.up " + d1),
			[]Reason{{Kind: "upstream_removed", Subject: "exec.up"}}},
		{"env", replace("env TOKEN 111111111111", "env TOKEN 222222222222"),
			[]Reason{{Kind: "env", Subject: "TOKEN"}}},
		{"fact", replace("fact npus 8", "fact npus 4"),
			[]Reason{{Kind: "fact", Subject: "npus", Old: "8", New: "4"}}},
		{"format", replace("format kiln-key-1", "format kiln-key-2"),
			[]Reason{{Kind: "format", Old: "kiln-key-1", New: "kiln-key-2"}}},
		{"two changes, in key order", fixture(
			"format kiln-key-1", "kind exec 1", `attr command "make all"`, `attr dir "sub"`,
			"input data/a.txt "+d2, "input data/b.txt "+d1, "file patches/x.patch "+d1,
			"dep exec.up "+d1, "fact npus 8", "env TOKEN 111111111111",
		),
			[]Reason{
				{Kind: "attribute", Subject: "command", Old: `"make"`, New: `"make all"`},
				{Kind: "input", Subject: "data/a.txt", Old: d1[:12], New: d2[:12]},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, DiffKeyLines(base, tt.cur)); diff != "" {
				t.Errorf("reasons (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDiffKeyLinesMessages(t *testing.T) {
	old := fixture("input data/a.txt "+strings.Repeat("1", 64), `attr command "a"`)
	cur := fixture("input data/a.txt "+strings.Repeat("2", 64), `attr command "b"`)
	var got []string
	for _, r := range DiffKeyLines(old, cur) {
		got = append(got, r.String())
	}
	want := []string{
		"input data/a.txt changed: 111111111111 → 222222222222",
		`attribute command changed: "a" → "b"`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}

// TestDiffKeyLinesRemovedKeyFile: a key file (a git_repo patch, a
// requirements file) that leaves the configuration is reported as removed,
// like an input.
func TestDiffKeyLinesRemovedKeyFile(t *testing.T) {
	old := fixture("file patches/x.patch " + strings.Repeat("1", 64))
	got := DiffKeyLines(old, nil)
	want := []Reason{{Kind: "input_removed", Subject: "patches/x.patch"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatal("a removed key file is reported as a change to an empty digest (\"input patches/x.patch changed: 111111111111 → \") instead of as removed (-want +got):\n" + diff)
	}
}

// TestDiffKeyLinesKindChange: a kind version bump names the kind.
func TestDiffKeyLinesKindChange(t *testing.T) {
	got := DiffKeyLines(fixture("kind exec 1"), fixture("kind exec 2"))
	want := []Reason{{Kind: "kind", Subject: "exec", Old: "1", New: "2"}}
	if diff := cmp.Diff(want, got); diff != "" {
		if len(got) == 1 {
			t.Fatalf("a kind version change reads %q, with an empty subject (-want +got):\n%s", got[0].String(), diff)
		}
		t.Fatalf("reasons (-want +got):\n%s", diff)
	}
}

// TestReasonNamesInputWithSpace: an input whose name holds a space is
// reported under its full name, through a real plan.
func TestReasonNamesInputWithSpace(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"pipeline.hcl": "exec \"a\" {\n  command = \"true\"\n  inputs = [\"my data.txt\"]\n}\n",
		"my data.txt":  "v1",
	})
	before := decideWith(t, openDecider(t, dir), "exec.a", nil)
	writeFiles(t, dir, map[string]string{"my data.txt": "v2"})
	after := decideWith(t, openDecider(t, dir), "exec.a", nil)
	got := DiffKeyLines(before.KeyLines, after.KeyLines)
	if len(got) != 1 || got[0].Subject != "my data.txt" {
		t.Fatalf("an input named \"my data.txt\" is reported as %+v (the key line splits its name at the space): want one input reason with subject \"my data.txt\"", got)
	}
}
