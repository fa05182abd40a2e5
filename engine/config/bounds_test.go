package config

import (
	"strings"
	"testing"
	"time"
)

// TestMetaNumbersAreWholeAndBounded: retries, total and resources take
// whole numbers within bounds, and timeout a duration kiln can count; each
// refusal names the file and line and says what the argument takes.
func TestMetaNumbersAreWholeAndBounded(t *testing.T) {
	cases := []struct {
		name, meta string
		want       []string // substrings of the error; none: valid
	}{
		{"retries negative", `retries = -3`, []string{"p.hcl:3,", "retries = -3", "from 0 to 100"}},
		{"retries fraction", `retries = 2.5`, []string{"p.hcl:3,", "retries = 2.5", "whole number"}},
		{"retries huge", `retries = 1e300`, []string{"p.hcl:3,", "retries = 1e+300", "from 0 to 100"}},
		{"retries over the bound", `retries = 101`, []string{"from 0 to 100"}},
		{"retries fine", `retries = 100`, nil},
		{"total fraction", `total = 1.5`, []string{"p.hcl:3,", "total = 1.5", "whole number"}},
		{"total negative", `total = -1`, []string{"total = -1"}},
		{"total huge", `total = 1e300`, []string{"total = 1e+300"}},
		{"total fine", `total = 372`, nil},
		{"resources huge", `resources = { npu = 1e18 }`, []string{"p.hcl:3,", "resources.npu = 1e+18", "from 0 to 1000000000000"}},
		{"resources beyond int64", `resources = { npu = 1e30 }`, []string{"resources.npu = 1e+30"}},
		{"resources fraction", `resources = { cpu = 0.5 }`, []string{"resources.cpu = 0.5", "whole number"}},
		{"resources negative", `resources = { mem_mb = -1 }`, []string{"resources.mem_mb = -1"}},
		{"resources fine", `resources = { npu = 8, mem_mb = 2000000 }`, nil},
		{"timeout out of range", `timeout = "1000000000000h"`, []string{"p.hcl:3,", "longer than kiln can count", `the most is "2562047h"`}},
		{"timeout digits out of range", `timeout = "99999999999999999999s"`, []string{"longer than kiln can count"}},
		{"timeout zero", `timeout = "0s"`, []string{"not more than zero"}},
		{"timeout negative", `timeout = "-5m"`, []string{"not more than zero"}},
		{"timeout not a duration", `timeout = "soon"`, []string{"not a duration"}},
		{"timeout fine", `timeout = "2562047h"`, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := "exec \"a\" {\n  command = \"x\"\n  " + c.meta + "\n}\n"
			_, diags := load(t, src, Options{})
			if c.want == nil {
				if diags.HasErrors() {
					t.Fatalf("refused: %s", diags.Error())
				}
				return
			}
			if !diags.HasErrors() {
				t.Fatal("accepted")
			}
			for _, w := range c.want {
				if !strings.Contains(diags.Error(), w) {
					t.Errorf("error %q does not say %q", diags.Error(), w)
				}
			}
		})
	}
}

func TestMetaNumbersKept(t *testing.T) {
	p, diags := load(t, "exec \"a\" {\n command = \"x\"\n retries = 3\n total = 372\n timeout = \"2h\"\n resources = { npu = 8 }\n}\n", Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	m := p.Nodes[0].Meta
	if m.Retries != 3 || m.Total != 372 || m.Timeout != 2*time.Hour || m.Resources["npu"] != 8 {
		t.Errorf("meta = retries %d, total %d, timeout %v, resources %v", m.Retries, m.Total, m.Timeout, m.Resources)
	}
}
