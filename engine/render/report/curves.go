package report

import (
	"path/filepath"
	"sort"

	"github.com/kilnbuild/kiln/engine/history"
	"github.com/kilnbuild/kiln/engine/metrics"
)

// loadCurves reads the metrics of every node that has any in the run or
// in the compared run.
func loadCurves(r, compare *history.Run) ([]*nodeCurves, error) {
	var out []*nodeCurves
	segs := segmentsOf(r)
	for i, n := range r.Nodes {
		c := &nodeCurves{addr: n.Addr, index: i}
		var err error
		if c.run, err = r.ResultMetrics(i, segs); err != nil {
			return nil, err
		}
		if compare != nil {
			if j := compare.Index(n.Addr); j >= 0 {
				if c.compare, err = compare.ResultMetrics(j, segs); err != nil {
					return nil, err
				}
			}
		}
		keys := map[string]bool{}
		for k := range c.run.Points {
			keys[k] = true
		}
		if c.compare != nil {
			for k := range c.compare.Points {
				keys[k] = true
			}
		}
		if len(keys) == 0 {
			continue
		}
		for k := range keys {
			c.keys = append(c.keys, k)
		}
		sort.Strings(c.keys)
		out = append(out, c)
	}
	return out, nil
}

// segmentsOf finds the curves of a result's segments among the runs
// recorded beside r: a resumed or restored result shows all its work.
func segmentsOf(r *history.Run) *history.Segments {
	if r.Dir == "" {
		return nil
	}
	return history.NewSegments(filepath.Dir(filepath.Dir(r.Dir)))
}

func relPath(dir, abs string) (string, error) {
	rel, err := filepath.Rel(dir, abs)
	if err != nil {
		return "", err
	}
	return filepath.ToSlash(rel), nil
}

// points returns the points of key, or nil.
func points(s *metrics.Series, key string) []metrics.Point {
	if s == nil {
		return nil
	}
	return s.Points[key]
}
