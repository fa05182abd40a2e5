package human

import "testing"

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n    int
		noun string
		want string
	}{
		{0, "node", "0 nodes"},
		{1, "node", "1 node"},
		{2, "edge", "2 edges"},
		{2, "lock mismatch", "2 lock mismatches"},
		{3, "process", "3 processes"},
		{1, "process", "1 process"},
	} {
		if got := Count(tc.n, tc.noun); got != tc.want {
			t.Errorf("Count(%d, %q) = %q, want %q", tc.n, tc.noun, got, tc.want)
		}
	}
}

func TestBytes(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{
		{0, "0 B"},
		{1023, "1023 B"},
		{1024, "1.0 KiB"},
		{1536, "1.5 KiB"},
		{15 << 30, "15.0 GiB"},
		{1 << 62, "4.0 EiB"},
	} {
		if got := Bytes(tc.n); got != tc.want {
			t.Errorf("Bytes(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestClosest(t *testing.T) {
	commands := []string{"apply", "plan", "validate", "graph", "state"}
	for _, tc := range []struct {
		s       string
		options []string
		want    string
	}{
		{"aply", commands, "apply"},                   // a deletion
		{"paln", commands, "plan"},                    // a swap is one edit
		{"val", commands, "validate"},                 // a prefix
		{"plan", commands, "plan"},                    // itself
		{"xyzzy", commands, ""},                       // nothing close
		{"a", commands, ""},                           // too short for a prefix
		{"aa", []string{"a"}, "a"},                    // one edit from a short name
		{"", commands, ""},                            // nothing typed
		{"stat", []string{"state", "stats"}, "state"}, // ties: first in order
	} {
		if got := Closest(tc.s, tc.options); got != tc.want {
			t.Errorf("Closest(%q) = %q, want %q", tc.s, got, tc.want)
		}
	}
}
