package review

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/plan"
)

func TestKeyChanges(t *testing.T) {
	long := strings.Repeat("x", 200)
	cases := []struct {
		name     string
		old, cur []string
		want     []plan.Reason
	}{
		{"same lines", []string{"format kiln-key-1", "attr a 1"}, []string{"format kiln-key-1", "attr a 1"}, nil},
		{"attribute changed", []string{"attr command \"a\""}, []string{"attr command \"b\""},
			[]plan.Reason{{Kind: "attribute", Subject: "command", Old: `"a"`, New: `"b"`}}},
		{"attribute set and unset", []string{"attr dir \"x\""}, []string{"attr env {}"}, []plan.Reason{
			{Kind: "attribute", Subject: "env", Old: "(unset)", New: "{}"},
			{Kind: "attribute", Subject: "dir", Old: `"x"`, New: "(unset)"},
		}},
		{"input edited, added and removed",
			[]string{"input a.csv 0123456789abcdef", "input gone.csv 11"},
			[]string{"input a.csv fedcba9876543210", "input new.csv 22"},
			[]plan.Reason{
				{Kind: "input", Subject: "a.csv", Old: "0123456789ab", New: "fedcba987654"},
				{Kind: "input_added", Subject: "new.csv"},
				{Kind: "input_removed", Subject: "gone.csv"},
			}},
		{"dependencies", []string{"dep exec.a"}, []string{"dep exec.b"}, []plan.Reason{
			{Kind: "upstream_added", Subject: "exec.b"},
			{Kind: "upstream_removed", Subject: "exec.a"},
		}},
		{"environment variable", []string{"env HOME 1"}, []string{"env HOME 2"}, []plan.Reason{{Kind: "env", Subject: "HOME"}}},
		{"long value clipped when set", nil, []string{"attr command " + long},
			[]plan.Reason{{Kind: "attribute", Subject: "command", Old: "(unset)", New: long[:119] + "…"}}},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, keyChanges(typed(tt.old), typed(tt.cur))); d != "" {
				t.Errorf("keyChanges (-want +got):\n%s", d)
			}
		})
	}
}

func TestExcerptShowsTheDifference(t *testing.T) {
	head := strings.Repeat("a", 100)
	tail := strings.Repeat("z", 100)
	tests := []struct {
		name             string
		old, cur         string
		wantOld, wantCur string
	}{
		{"short values whole", "abc", "abd", "abc", "abd"},
		{"change in the middle", head + "OLD" + tail, head + "NEW" + tail,
			"…" + head[:40] + "OLD" + tail[:40] + "…", "…" + head[:40] + "NEW" + tail[:40] + "…"},
		{"change at the end", head + tail + "1", head + tail + "2",
			"…" + tail[len(tail)-40:] + "1", "…" + tail[len(tail)-40:] + "2"},
		{"change at the start", "1" + head + tail, "2" + head + tail,
			"1" + head[:40] + "…", "2" + head[:40] + "…"},
		{"cut on a rune boundary", strings.Repeat("é", 80) + "x", strings.Repeat("é", 80) + "y",
			"…" + strings.Repeat("é", 20) + "x", "…" + strings.Repeat("é", 20) + "y"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gotOld, gotCur := excerpt(tt.old, tt.cur)
			if gotOld != tt.wantOld || gotCur != tt.wantCur {
				t.Errorf("excerpt =\n  %q\n  %q\nwant\n  %q\n  %q", gotOld, gotCur, tt.wantOld, tt.wantCur)
			}
		})
	}
}

// typed writes the lines of a case, "label subject value", as key lines;
// a dep line's subject is its upstream's address.
func typed(text []string) []hash.Line {
	var out []hash.Line
	for _, t := range text {
		label, rest, _ := strings.Cut(t, " ")
		subject, value, _ := strings.Cut(rest, " ")
		l := hash.Line{Label: label, Subject: subject, Value: value}
		if label == "dep" {
			l.Subject, l.Note = "1", subject
		}
		out = append(out, l)
	}
	return out
}
