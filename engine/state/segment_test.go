package state

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestSegments(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	first := Segment{Started: t0, Duration: 10 * time.Second, Log: "a.log"}
	second := Segment{Started: t0.Add(time.Minute), Duration: 2 * time.Second, Log: "b.log"}
	kept := &Record{Addr: "exec.r", Failure: &Failure{Entry: "k-1", Segments: []Segment{first}}}
	resumed := &Record{Addr: "exec.r", Digest: "d", Started: t0, Duration: 12 * time.Second, Log: "b.log", Segments: []Segment{first, second}}
	plain := &Record{Addr: "exec.p", Digest: "d", Started: t0, Duration: time.Second, Log: "p.log"}
	tests := []struct {
		name string
		got  any
		want any
	}{
		{"earlier segments of the folder kept", kept.SegmentsIn("k-1"), []Segment{first}},
		{"another folder has none", kept.SegmentsIn("k-2"), []Segment(nil)},
		{"no folder has none", kept.SegmentsIn(""), []Segment(nil)},
		{"a nil record has none", (*Record)(nil).SegmentsIn("k-1"), []Segment(nil)},
		{"a resumed result is its segments", resumed.AllSegments(), []Segment{first, second}},
		{"a result built in one go is one segment", plain.AllSegments(), []Segment{{Started: t0, Duration: time.Second, Log: "p.log"}}},
		{"no result, no segments", kept.AllSegments(), []Segment(nil)},
		{"the total is the sum", TotalDuration(resumed.Segments), 12 * time.Second},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, tc.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	// A clone does not share its segments with the record.
	c := resumed.clone()
	c.Segments[0].Log = "changed"
	if resumed.Segments[0].Log != "a.log" {
		t.Errorf("clone shares the segments of the record")
	}
}
