package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kilnbuild/kiln/engine/history"
	"github.com/kilnbuild/kiln/engine/metrics"
)

// SweepRun is one run of those a report lists and compares (kiln report
// -runs N): its summary for the runs table, and the run, whose curves the
// compare charts overlay.
type SweepRun struct {
	Summary history.Summary
	Run     *history.Run
}

// sweepLine is one run's curve of one metric on a compare chart.
type sweepLine struct {
	label string // what tells the run apart: "lr=0.002 · val/loss"
	run   int    // index of the run among the compared ones: its colour
	key   int    // index of the metric in its group: its dash
	pts   []metrics.Point
}

// metricGroup is the name a metric shares with the metrics drawn on its
// chart: train/loss, val/loss and val_loss are all "loss", so a run's
// train and validation losses share a chart.
func metricGroup(key string) string {
	for _, sep := range []string{"/", "_"} {
		if p, rest, ok := strings.Cut(key, sep); ok && rest != "" {
			switch strings.ToLower(p) {
			case "train", "training", "val", "valid", "validation", "eval", "test":
				return rest
			}
		}
	}
	return key
}

// runLabel names a run by the variables that tell it from the others
// compared, or by its ID when none does.
func runLabel(s history.Summary) string {
	if len(s.Differs) == 0 {
		return fmt.Sprintf("run %d", s.ID)
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(s.Differs)) {
		parts = append(parts, k+"="+s.Differs[k])
	}
	return strings.Join(parts, " ")
}

// sweepCharts are, per node with metrics in any compared run, one chart per
// metric group, each with a line per run and metric.
func sweepCharts(runs []SweepRun, smooth float64) (nodes []string, charts map[string]map[string][]sweepLine, err error) {
	charts = map[string]map[string][]sweepLine{}
	segs := (*history.Segments)(nil)
	if len(runs) > 0 {
		segs = segmentsOf(runs[0].Run)
	}
	for ri, sr := range runs {
		for i, n := range sr.Run.Nodes {
			if !n.Metrics {
				continue
			}
			s, err := sr.Run.ResultMetrics(i, segs)
			if err != nil {
				return nil, nil, err
			}
			for _, k := range s.Keys() {
				g := metricGroup(k)
				if charts[n.Addr] == nil {
					charts[n.Addr] = map[string][]sweepLine{}
					nodes = append(nodes, n.Addr)
				}
				charts[n.Addr][g] = append(charts[n.Addr][g], sweepLine{label: runLabel(sr.Summary) + " · " + k, run: ri, pts: smoothed(s.Points[k], smooth)})
			}
		}
	}
	for _, groups := range charts {
		for g, lines := range groups {
			keys := map[string]int{}
			for i, l := range lines {
				k := l.label[strings.LastIndex(l.label, " · ")+3:]
				if _, ok := keys[k]; !ok {
					keys[k] = len(keys)
				}
				lines[i].key = keys[k]
			}
			groups[g] = lines
		}
	}
	return nodes, charts, nil
}

// smoothed is the exponential moving average of pts with weight w (0 keeps
// them as they are), as TensorBoard smooths; non-finite values pass.
func smoothed(pts []metrics.Point, w float64) []metrics.Point {
	if w <= 0 || w >= 1 {
		return pts
	}
	out := make([]metrics.Point, len(pts))
	last, have := 0.0, false
	for i, p := range pts {
		out[i] = p
		if !finiteValue(p.Value) {
			continue
		}
		if have {
			last = last*w + p.Value*(1-w)
		} else {
			last, have = p.Value, true
		}
		out[i].Value = last
	}
	return out
}

// compareNames name a run and the one compared with it by the variables
// that differ between them: "run 8 · lr=0.002" and "run 7 · lr=0.001".
func compareNames(a, b *history.Run) (string, string) {
	an, bn := fmt.Sprintf("run %d", a.ID), fmt.Sprintf("run %d", b.ID)
	names := map[string]bool{}
	for k := range a.Vars {
		names[k] = true
	}
	for k := range b.Vars {
		names[k] = true
	}
	for _, k := range slices.Sorted(maps.Keys(names)) {
		av, aok := a.Vars[k]
		bv, bok := b.Vars[k]
		if av != bv || aok != bok {
			an += " · " + k + "=" + av
			bn += " · " + k + "=" + bv
		}
	}
	return an, bn
}

// varsText writes the variables a run was run with, name=value sorted by
// name; a sensitive one is "(sensitive)", as the run recorded it.
func varsText(r *history.Run) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(r.Vars)) {
		v := r.Vars[k]
		if len(v) > 80 {
			v = v[:80] + "…"
		}
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, " ")
}
