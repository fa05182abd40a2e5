package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/providers/exec"
)

// TestPlanWarnsWhenTheStoreDiskIsShort: a node to be built again whose
// last result is larger than the free space of the store's disk is named
// in the plan's warning, with both sizes; with room, or for a node built
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
	storeFree = func(string) (uint64, uint64, error) { return 1_500_000, 1 << 30, nil }
	stateDir := filepath.Join(dir, ".kiln")
	plan := func(vars map[string]string) string {
		t.Helper()
		w, diags, err := Open(Options{Path: dir, Vars: vars, Kinds: []kind.Kind{exec.New()}})
		if err != nil || diags.HasErrors() {
			t.Fatalf("open: %v %s", err, diags.Error())
		}
		pl, diags := w.Plan(context.Background())
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		return StoreSpaceWarning(pl, stateDir)
	}
	if got := plan(nil); got != "" {
		t.Errorf("a first plan has no last results to weigh, but warns: %s", got)
	}
	w, diags, err := Open(Options{Path: dir, Kinds: []kind.Kind{exec.New()}})
	if err != nil || diags.HasErrors() {
		t.Fatalf("open: %v %s", err, diags.Error())
	}
	if _, err := w.Apply(context.Background(), ApplyOptions{Parallelism: 1}); err != nil {
		t.Fatal(err)
	}
	want := "warning: the store's disk (" + filepath.Join(stateDir, "store") + ") has 1.5 MB free, less than the last results of the nodes this plan runs took: exec.big 2.0 MB"
	if got := plan(map[string]string{"round": "2"}); !strings.Contains(got, want) {
		t.Errorf("the plan after a change warns %q, want %q", got, want)
	}
	storeFree = func(string) (uint64, uint64, error) { return 1 << 40, 1 << 41, nil }
	if got := plan(map[string]string{"round": "2"}); got != "" {
		t.Errorf("with a terabyte free the plan warns: %s", got)
	}
	// A disk that holds less than it has free has room for all its
	// results again: the plan weighs none.
	storeFree = func(string) (uint64, uint64, error) { return 1_500_000, 1_000_000, nil }
	if got := plan(map[string]string{"round": "2"}); got != "" {
		t.Errorf("with less used than free on the disk the plan warns: %s", got)
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
