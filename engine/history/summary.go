package history

import (
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/kilnbuild/kiln/engine/metrics"
)

// Summary is one run as kiln runs lists it: what it was run with, what
// changed, how each node ended and what its metrics came to.
type Summary struct {
	ID      int               `json:"id"`
	Started time.Time         `json:"started"`
	Status  Status            `json:"status"`           // Label: failed when a node failed
	Commit  string            `json:"commit,omitempty"` // the git commit it ran at
	Vars    map[string]string `json:"vars"`
	// Differs are the variables whose values differ between the runs
	// listed together: what tells them apart (learning_rate=0.002).
	Differs map[string]string `json:"differs"`
	// Changed says why each node that ran did: "exec.train: variable
	// learning_rate changed: 0.001 → 0.002".
	Changed []string      `json:"changed"`
	Nodes   []NodeSummary `json:"nodes"`
}

// NodeSummary is how one node of a run ended and its metrics.
type NodeSummary struct {
	Addr    string          `json:"addr"`
	Outcome string          `json:"outcome"` // "" when it was not reached
	Metrics []MetricSummary `json:"metrics,omitempty"`
}

// MetricSummary is one metric of a node's result (all its segments): its
// final value and its best, the lowest for a loss, error or perplexity and
// the highest otherwise (accuracy, reward, score).
type MetricSummary struct {
	Key      string   `json:"key"`
	Steps    int      `json:"steps"`
	Final    *float64 `json:"final"`
	Step     int64    `json:"final_step"`
	Best     *float64 `json:"best"`
	BestStep int64    `json:"best_step"`
}

// LowerIsBetter says whether a metric's best value is its lowest.
func LowerIsBetter(key string) bool {
	k := strings.ToLower(key)
	for _, w := range []string{"loss", "err", "perplexity", "ppl", "mse", "mae", "rmse", "wer", "cer"} {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}

// Summarise reads the runs ids of the state folder dir, in that order, and
// summarises each; a run that cannot be read is left out.
func Summarise(dir string, ids []int) ([]Summary, error) {
	segs := NewSegments(dir)
	var out []Summary
	for _, id := range ids {
		r, err := Load(dir, id)
		if err != nil {
			continue
		}
		s := Summary{ID: r.ID, Started: r.Started, Status: r.Label(), Commit: r.Commit, Vars: r.Vars, Differs: map[string]string{}, Changed: []string{}}
		if s.Vars == nil {
			s.Vars = map[string]string{}
		}
		for i, n := range r.Nodes {
			ns := NodeSummary{Addr: n.Addr, Outcome: n.Outcome}
			if n.Metrics {
				series, err := r.ResultMetrics(i, segs)
				if err != nil {
					return nil, err
				}
				ns.Metrics = summariseSeries(series)
			}
			s.Nodes = append(s.Nodes, ns)
			if !n.Began.IsZero() && len(n.Reasons) > 0 {
				s.Changed = append(s.Changed, n.Addr+": "+n.Reasons[0].String())
			}
		}
		out = append(out, s)
	}
	markDiffers(out)
	for i := 1; i < len(out); i++ {
		out[i].Changed = append(varChanges(out[i-1].Vars, out[i].Vars), out[i].Changed...)
	}
	return out, nil
}

// varChanges says which variables changed from one run to the next:
// "var.lr: 0.1 → 0.3".
func varChanges(old, cur map[string]string) []string {
	var out []string
	names := map[string]bool{}
	for n := range old {
		names[n] = true
	}
	for n := range cur {
		names[n] = true
	}
	for _, n := range slices.Sorted(maps.Keys(names)) {
		o, ok := old[n]
		if !ok {
			o = "(undeclared)"
		}
		c, ok := cur[n]
		if !ok {
			c = "(undeclared)"
		}
		if o != c {
			out = append(out, "var."+n+": "+o+" → "+c)
		}
	}
	return out
}

func summariseSeries(s *metrics.Series) []MetricSummary {
	var out []MetricSummary
	for _, k := range s.Keys() {
		sum := metrics.Summarise(s.Points[k])
		m := MetricSummary{Key: k, Steps: sum.Steps, Step: sum.Last}
		m.Final = finite(sum.LastValue)
		if LowerIsBetter(k) {
			m.Best, m.BestStep = finite(sum.Min), sum.MinStep
		} else {
			m.Best, m.BestStep = finite(sum.Max), sum.MaxStep
		}
		out = append(out, m)
	}
	return out
}

func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// markDiffers fills each summary's Differs with the variables whose values
// are not the same in every run listed.
func markDiffers(runs []Summary) {
	names := map[string]bool{}
	for _, r := range runs {
		for n := range r.Vars {
			names[n] = true
		}
	}
	for _, n := range slices.Sorted(maps.Keys(names)) {
		first, same := "", true
		for i, r := range runs {
			v, ok := r.Vars[n]
			if !ok {
				v = "(undeclared)"
			}
			if i == 0 {
				first = v
			} else if v != first {
				same = false
			}
		}
		if same {
			continue
		}
		for i := range runs {
			v, ok := runs[i].Vars[n]
			if !ok {
				v = "(undeclared)"
			}
			runs[i].Differs[n] = v
		}
	}
}
