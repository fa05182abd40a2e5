package state

import (
	"slices"
	"time"
)

// Segment is one stretch of work on a result: a resumable node that was
// interrupted and ran again in the same run folder built its result in
// several, each with its own start, duration and log.
type Segment struct {
	Started  time.Time     `json:"started"`
	Duration time.Duration `json:"duration_ns"`
	Log      string        `json:"log,omitempty"` // relative to the pipeline folder
}

// AllSegments returns the segments the record's result was built in, in
// the order they ran: its Segments when it was resumed, else the one run
// its Started, Duration and Log describe. A record without a result has
// none.
func (r *Record) AllSegments() []Segment {
	if !r.Good() {
		return nil
	}
	if len(r.Segments) > 0 {
		return r.Segments
	}
	return []Segment{{Started: r.Started, Duration: r.Duration, Log: r.Log}}
}

// SegmentsIn returns the segments that interrupted runs left in the run
// folder entry, when the record's failure kept that folder to resume in.
func (r *Record) SegmentsIn(entry string) []Segment {
	if r == nil || r.Failure == nil || entry == "" || r.Failure.Entry != entry {
		return nil
	}
	return slices.Clone(r.Failure.Segments)
}

// TotalDuration is the sum of the segments' durations.
func TotalDuration(segs []Segment) time.Duration {
	var t time.Duration
	for _, s := range segs {
		t += s.Duration
	}
	return t
}
