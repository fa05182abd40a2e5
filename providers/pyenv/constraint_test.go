package pyenv

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSpecifierAllows(t *testing.T) {
	tests := []struct {
		constraint, installed string
		want                  bool
	}{
		{"torch==2.7.1", "2.7.1", true},
		{"torch==2.7.1", "2.7.1+cpu", true},
		{"torch==2.7.1", "2.7.10", false},
		{"torch==2.7.1", "2.7.1rc1", false},
		{"torch==2.7", "2.7.0", true},
		{"torch==2.7.1+cpu", "2.7.1", false},
		{"torch==2.7.1+cpu", "2.7.1+cpu", true},
		{"torch==2.7.*", "2.7.9", true},
		{"torch==2.7.*", "2.7.1rc1", true},
		{"torch==2.7.*", "2.8.0", false},
		{"torch!=2.7.*", "2.8.0", true},
		{"torchvision==0.22.1", "0.20.1", false},
		{"tensordict>=0.8.0,<=0.10.0,!=0.9.0", "0.9.0", false},
		{"tensordict>=0.8.0,<=0.10.0,!=0.9.0", "0.10.0", true},
		{"tensordict>=0.8.0,<=0.10.0,!=0.9.0", "0.10.1", false},
		{"tensordict>=0.8.0,<=0.10.0,!=0.9.0", "0.7.9", false},
		{"numpy<2.0.0", "1.26.4", true},
		{"numpy<2.0.0", "2.0.0rc1", false},
		{"numpy<2.0.0rc2", "2.0.0rc1", true},
		{"numpy<2.0.0", "2.0.0", false},
		{"ray>=2.47.1", "2.46.0", false},
		{"ray>=2.47.1", "2.47.1", true},
		{"ray>=2.47.1", "2.48.0.dev0", true},
		{"ray>2.46", "2.46.0.post1", false},
		{"ray>2.46.post1", "2.46.0.post2", true},
		{"ray>2.46", "2.46.0+local", false},
		{"ray>2.46", "2.46.1", true},
		{"transformers<=4.57.1", "4.57.1+local", true},
		{"peft~=0.15", "0.17.0", true},
		{"peft~=0.15", "1.0", false},
		{"peft~=0.15.2", "0.15.9", true},
		{"peft~=0.15.2", "0.16.0", false},
		{"peft~=0.15.2", "0.15.1", false},
		{"weird===1.0-custom", "1.0-Custom", true},
		{"weird===1.0", "1.0.0", false},
		{"torch-npu==2.7.1", "2.7.1.post1", false},
	}
	for _, tt := range tests {
		c, err := ParseConstraint(tt.constraint)
		if err != nil {
			t.Fatalf("ParseConstraint(%q): %v", tt.constraint, err)
		}
		got := true
		for _, s := range c.Specs {
			ok, err := s.Allows(tt.installed)
			if err != nil {
				t.Fatalf("%s allows %q: %v", s, tt.installed, err)
			}
			got = got && ok
		}
		if got != tt.want {
			t.Errorf("%q allows %q = %v, want %v", tt.constraint, tt.installed, got, tt.want)
		}
	}
}

func TestParseConstraint(t *testing.T) {
	c, err := ParseConstraint(" vllm[audio] >= 0.11.0 , != 0.11.1 ")
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "vllm" || specsString(c.Specs) != ">=0.11.0,!=0.11.1" {
		t.Errorf("got name %q specs %q", c.Name, specsString(c.Specs))
	}
	bad := map[string]string{
		"":                             "expected a distribution name",
		"torch=2.7.1":                  "expected one of ==",
		"torch==latest":                "not a PEP 440 version",
		"torch~=2":                     "at least two release parts",
		"torch>=2.7.*":                 "not a PEP 440 version", // .* only goes with == and !=
		"torch==2.7.*rc1":              "not a PEP 440 version",
		"torch>=2.7+cpu":               "local version label",
		"torch @ https://x/torch.whl":  "direct references",
		"torch; python_version<'3.12'": "environment markers",
	}
	for in, want := range bad {
		_, err := ParseConstraint(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseConstraint(%q) = %v, want an error containing %q", in, err, want)
		}
	}
}

func TestNormaliseName(t *testing.T) {
	for in, want := range map[string]string{
		"torch_npu":         "torch-npu",
		"Torch.NPU":         "torch-npu",
		"torch--npu":        "torch-npu",
		"opencv-python_._x": "opencv-python-x",
		"ray":               "ray",
	} {
		if got := NormaliseName(in); got != want {
			t.Errorf("NormaliseName(%q) = %q, want %q", in, got, want)
		}
	}
}

// The retool fight: verl's requirements pin torchvision 0.20.1 (and pull
// torch 2.5.1), vllm-ascend's reinstall torch 2.7.1 and move ray; a last
// step pins torchvision but leaves ray alone.
func TestCheckConstraintsNamesTheStep(t *testing.T) {
	inv := func(pairs ...string) Inventory {
		var p [][2]string
		for i := 0; i < len(pairs); i += 2 {
			p = append(p, [2]string{pairs[i], pairs[i+1]})
		}
		return newInventory(p)
	}
	snaps := []Snapshot{
		{Step: 0, Label: "the new venv", Dists: inv("pip", "23.2.1", "setuptools", "65.5.0")},
		{Step: 1, Label: "requirements-npu.txt", Dists: inv("pip", "23.2.1", "setuptools", "65.5.0", "torch", "2.5.1", "torchvision", "0.20.1", "ray", "2.46.0", "old-thing", "1.0")},
		{Step: 2, Label: "requirements-dev.txt", Dists: inv("pip", "23.2.1", "setuptools", "65.5.0", "torch", "2.7.1", "torch_npu", "2.7.1", "torchvision", "0.20.1", "ray", "2.48.0")},
		{Step: 3, Label: "torch==2.7.1", Dists: inv("pip", "23.2.1", "setuptools", "65.5.0", "torch", "2.7.1", "Torch-NPU", "2.7.1", "torchvision", "0.20.1", "ray", "2.48.0", "dup", "1.0", "DUP", "2.0")},
	}
	var cs []Constraint
	for _, raw := range []string{"torch==2.7.1", "torch_npu==2.7.1", "torchvision==0.22.1", "ray==2.46.0", "old_thing", "never", "pip<20", "dup"} {
		c, err := ParseConstraint(raw)
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
	}
	want := []string{
		"torchvision: installed 0.20.1, required ==0.22.1 (installed by step 1: requirements-npu.txt)",
		"ray: installed 2.48.0, required ==2.46.0 (installed by step 2: requirements-dev.txt)",
		"old_thing: not installed, required any version (removed by step 2: requirements-dev.txt)",
		"never: not installed, required any version (no install step installed it)",
		"pip: installed 23.2.1, required <20 (present in the new venv)",
		"dup: installed 1.0 and 2.0 at once, required exactly one version (installed by step 3: torch==2.7.1)",
	}
	if d := cmp.Diff(want, CheckConstraints(cs, snaps)); d != "" {
		t.Errorf("violations (-want +got):\n%s", d)
	}
}

func TestReportModes(t *testing.T) {
	violations := []string{"ray: installed 2.48.0, required ==2.46.0 (installed by step 2: x)"}
	complaints := []string{"vllm 0.11.0 has requirement torch==2.8.0, but you have torch 2.7.1."}
	if err := report(nil, complaints, "warn"); err != nil {
		t.Errorf("warn mode fails the build on pip check: %v", err)
	}
	if err := report(nil, nil, "error"); err != nil {
		t.Errorf("nothing to report, got %v", err)
	}
	err := report(violations, complaints, "warn")
	if err == nil || strings.Contains(err.Error(), "pip check") || !strings.Contains(err.Error(), violations[0]) {
		t.Errorf("warn mode with a violation: %v", err)
	}
	err = report(nil, complaints, "error")
	if err == nil || !strings.Contains(err.Error(), "  "+complaints[0]) || !strings.Contains(err.Error(), `pip_check = "warn"`) {
		t.Errorf("error mode with a pip check complaint: %v", err)
	}
}
