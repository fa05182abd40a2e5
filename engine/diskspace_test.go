package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanWarnsWhenTheStoreDiskIsShort: a node to be built again whose
// last result is larger than the free space of the store's disk is named
// in kiln plan's warning, with both sizes; with room, or for a node built
// for the first time, the plan says nothing about space.
func TestPlanWarnsWhenTheStoreDiskIsShort(t *testing.T) {
	dir := t.TempDir()
	src := `variable "round" {
  type    = number
  default = 1
}

exec "big" {
  command = "head -c 2000000 /dev/zero > $KILN_OUT/weights.bin; echo ${var.round} > $KILN_OUT/round"
}

exec "small" {
  command = "echo ${var.round} > $KILN_OUT/round"
}
`
	if err := os.WriteFile(filepath.Join(dir, "pipeline.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	real := storeFree
	t.Cleanup(func() { storeFree = real })
	storeFree = func(string) (uint64, error) { return 1_500_000, nil }

	if stdout, _, _ := kilnRun(t, "plan", dir); strings.Contains(stdout, "warning: the store's disk") {
		t.Errorf("a first plan has no last results to weigh, but warns:\n%s", stdout)
	}
	if stdout, stderr, code := kilnRun(t, "apply", dir); code != 0 {
		t.Fatalf("kiln apply: exit %d\n%s%s", code, stdout, stderr)
	}
	stdout, _, _ := kilnRun(t, "plan", "-var", "round=2", dir)
	want := "warning: the store's disk (" + filepath.Join(dir, ".kiln", "store") + ") has 1.5 MB free, less than the last results of the nodes this plan runs took: exec.big 2.0 MB"
	if !strings.Contains(stdout, want) {
		t.Errorf("kiln plan after a change does not warn %q:\n%s", want, stdout)
	}

	storeFree = func(string) (uint64, error) { return 1 << 40, nil }
	if stdout, _, _ := kilnRun(t, "plan", "-var", "round=2", dir); strings.Contains(stdout, "warning: the store's disk") {
		t.Errorf("with a terabyte free the plan warns:\n%s", stdout)
	}
}

// TestSpaceWarningText lists the largest results first, five at most.
func TestSpaceWarningText(t *testing.T) {
	var sizes []resultSize
	for i, addr := range []string{"exec.a", "exec.b", "exec.c", "exec.d", "exec.e", "exec.f", "exec.g"} {
		sizes = append(sizes, resultSize{addr, int64(i+1) * 1_000_000_000})
	}
	got := spaceWarningText(90_000_000_000, sizes, "/s")
	want := "warning: the store's disk (/s) has 90.0 GB free, less than the last results of the nodes this plan runs took: exec.g 7.0 GB, exec.f 6.0 GB, exec.e 5.0 GB, exec.d 4.0 GB, exec.c 3.0 GB, 2 more (28.0 GB together); free space on that disk or run kiln gc before kiln apply"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
