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
	for i, n := range r.Nodes {
		c := &nodeCurves{addr: n.Addr, index: i}
		var err error
		if c.run, err = r.Metrics(i); err != nil {
			return nil, err
		}
		if compare != nil {
			if j := compare.Index(n.Addr); j >= 0 {
				if c.compare, err = compare.Metrics(j); err != nil {
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
