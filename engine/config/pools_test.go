package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/pool"
)

func TestPoolBlocks(t *testing.T) {
	p, diags := load(t, `
variable "gpus" {
  default = "0-3"
}
locals {
  halves = [[0, 1, 2, 3], [4, 5, 6, 7]]
}
pool "npu" {
  groups = local.halves
}
pool "gpu" {
  devices = var.gpus
}
pool "fpga" {
  devices = [1, 0]
  env     = "FPGA_IDS"
}
exec "a" { command = "true" }
`, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	env := "FPGA_IDS"
	want := map[string]pool.Spec{
		"npu":  {Name: "npu", Groups: []pool.IDs{{0, 1, 2, 3}, {4, 5, 6, 7}}},
		"gpu":  {Name: "gpu", Devices: pool.IDs{0, 1, 2, 3}},
		"fpga": {Name: "fpga", Devices: pool.IDs{0, 1}, Env: &env},
	}
	got := map[string]pool.Spec{}
	for name, b := range p.Pools {
		got[name] = b.Spec
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pools (-want +got):\n%s", diff)
	}
}

func TestInvalidPoolBlocks(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"ids repeat", `pool "npu" { devices = [0, 1, 1] }`, "device 1 is listed twice"},
		{"bad range", `pool "npu" { devices = "7-0" }`, "not a range"},
		{"not ids", `pool "npu" { devices = { a = 1 } }`, "must be device ids"},
		{"fraction", `pool "npu" { devices = [0.5] }`, "whole numbers"},
		{"a device in two groups", `pool "npu" { groups = [[0, 1], [1, 2]] }`, "puts device 1 in group 1 and in group 2"},
		{"a group outside the devices", `pool "npu" {
  devices = "0-3"
  groups  = [[0, 1], [4, 5]]
}`, "group 2 names device 4, which devices (0-3) does not list"},
		{"env not a string", `pool "gpu" { env = 3 }`, "must be the name of an environment variable"},
		{"unknown argument", `pool "npu" { device = "0-7" }`, "Unsupported argument"},
		{"a node reference", `pool "npu" { devices = exec.a.out }`, "exec"},
		{"duplicate", "pool \"npu\" {}\npool \"npu\" {}", "Duplicate pool.npu"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, diags := load(t, tt.src+"\nexec \"a\" { command = \"true\" }\n", Options{})
			if !diags.HasErrors() || !strings.Contains(diags.Error(), tt.want) {
				t.Fatalf("diagnostics %q, want one containing %q", diags.Error(), tt.want)
			}
			for _, d := range diags {
				if d.Subject == nil || d.Subject.Filename == "" {
					t.Errorf("diagnostic %q has no source range", d.Summary)
				}
			}
		})
	}
}
