package history

import (
	"maps"
	"slices"
)

// Diff compares two runs as dvc metrics diff and dvc params diff do: the
// final value of each node's metrics, and the variables, in each run.
type Diff struct {
	Old     int            `json:"old"` // run IDs
	New     int            `json:"new"`
	Metrics []MetricChange `json:"metrics"`
	Params  []ParamChange  `json:"params"`
}

// MetricChange is one metric of one node in the two runs; Old or New is
// nil where the run has no value, Change is New - Old when both have one.
type MetricChange struct {
	Addr   string   `json:"addr"`
	Key    string   `json:"key"`
	Old    *float64 `json:"old"`
	New    *float64 `json:"new"`
	Change *float64 `json:"change"`
}

// ParamChange is a variable whose value differs between the two runs;
// "(undeclared)" where a run lacks it.
type ParamChange struct {
	Name string `json:"name"`
	Old  string `json:"old"`
	New  string `json:"new"`
}

// Compare is the diff of run a to run b. With all, every metric and
// variable is listed, changed or not.
func Compare(a, b Summary, all bool) Diff {
	d := Diff{Old: a.ID, New: b.ID, Metrics: []MetricChange{}, Params: []ParamChange{}}
	type at struct{ addr, key string }
	vals := map[at][2]*float64{}
	var order []at
	for side, s := range []Summary{a, b} {
		for _, n := range s.Nodes {
			for _, m := range n.Metrics {
				k := at{n.Addr, m.Key}
				v, seen := vals[k]
				if !seen {
					order = append(order, k)
				}
				v[side] = m.Final
				vals[k] = v
			}
		}
	}
	for _, k := range order {
		v := vals[k]
		c := MetricChange{Addr: k.addr, Key: k.key, Old: v[0], New: v[1]}
		if v[0] != nil && v[1] != nil {
			x := *v[1] - *v[0]
			c.Change = &x
		}
		if all || c.Change == nil || *c.Change != 0 {
			d.Metrics = append(d.Metrics, c)
		}
	}
	names := map[string]bool{}
	for n := range a.Vars {
		names[n] = true
	}
	for n := range b.Vars {
		names[n] = true
	}
	for _, n := range slices.Sorted(maps.Keys(names)) {
		o, ok := a.Vars[n]
		if !ok {
			o = "(undeclared)"
		}
		v, ok := b.Vars[n]
		if !ok {
			v = "(undeclared)"
		}
		if all || o != v {
			d.Params = append(d.Params, ParamChange{Name: n, Old: o, New: v})
		}
	}
	return d
}
