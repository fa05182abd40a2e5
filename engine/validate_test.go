package engine_test

import (
	"slices"
	"strings"
	"testing"
)

// Validate checks the nodes of one wave in parallel, yet says what it
// finds in the graph's order, the same every time, and each node sees its upstreams' values:
// a wide wave with a missing input and an output outside the folder, and a
// second wave that reads the first.
func TestValidateWideWaves(t *testing.T) {
	dir := pipeline(t, map[string]string{"pipeline.hcl": `
exec "s" {
  count   = 40
  inputs  = count.index == 7 ? ["missing.txt"] : []
  outputs = count.index == 31 ? ["../escape.txt"] : []
  command = "echo ${count.index} > $KILN_OUT/n"
}

exec "join" {
  command = "cat ${exec.s[5].out}/n ${exec.s[39].out}/n > $KILN_OUT/all"
}

exec "bad" {
  command = "echo ${exec.join.nosuch}"
}
`})
	var first []string
	for range 5 {
		var got []string
		for _, d := range open(t, dir, nil).Validate() {
			got = append(got, d.Summary+": "+d.Detail)
		}
		for _, w := range []string{"exec.s[7]: input missing.txt not found", "exec.s[31]: output ../escape.txt is outside", `attribute named "nosuch"`} {
			if !slices.ContainsFunc(got, func(g string) bool { return strings.Contains(g, w) }) {
				t.Errorf("Validate did not say %q: %q", w, got)
			}
		}
		if len(got) != 3 {
			t.Fatalf("Validate said %d things, want 3 (exec.join sees its upstreams' values):\n%s", len(got), strings.Join(got, "\n"))
		}
		if first == nil {
			first = got
		} else if !slices.Equal(got, first) {
			t.Fatalf("Validate said\n%q\nthen\n%q: its order depends on which node was checked first", first, got)
		}
	}
}
