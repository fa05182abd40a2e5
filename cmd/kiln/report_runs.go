package main

import (
	"fmt"

	"github.com/kilnbuild/kiln/engine/history"
	"github.com/kilnbuild/kiln/engine/render/report"
)

// sweepRuns are the last n recorded runs up to and including run id, for
// the report's runs table and compare charts.
func sweepRuns(dir string, id, n int) ([]report.SweepRun, error) {
	all, err := history.List(dir)
	if err != nil {
		return nil, err
	}
	var ids []int
	for _, x := range all {
		if x <= id {
			ids = append(ids, x)
		}
	}
	if len(ids) > n {
		ids = ids[len(ids)-n:]
	}
	sums, err := history.Summarise(dir, ids)
	if err != nil {
		return nil, err
	}
	var out []report.SweepRun
	for _, s := range sums {
		r, err := history.Load(dir, s.ID)
		if err != nil {
			return nil, fmt.Errorf("run %d: %w", s.ID, err)
		}
		out = append(out, report.SweepRun{Summary: s, Run: r})
	}
	return out, nil
}
