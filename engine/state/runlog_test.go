package state

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/proc"
)

// TestRunLogFindsUnendedRuns: the runs a dead kiln began are read back with
// their process groups, those that ended marked so; a torn last line is
// skipped.
func TestRunLogFindsUnendedRuns(t *testing.T) {
	dir := t.TempDir()
	l, left, err := OpenRunLog(dir)
	if err != nil || len(left) != 0 {
		t.Fatalf("fresh: %v, %v", left, err)
	}
	a, err := l.Begin(`exec.a["x y"]`, "k1-r1", false)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := l.Begin("exec.b", "k2-r2", true)
	a.GroupStarted(proc.Group{PGID: 100, Start: 7})
	b.GroupStarted(proc.Group{PGID: 200, Start: 8})
	c, _ := l.Begin("exec.c", "k3-r3", false)
	c.End()
	a.GroupStarted(proc.Group{PGID: 101, Start: 9})
	// kiln dies here, in the middle of a line.
	f, _ := os.OpenFile(filepath.Join(dir, runLogName), os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"op":"end","entry":"k1-`)
	f.Close()

	l2, left, err := OpenRunLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []Interrupted{
		{Addr: `exec.a["x y"]`, Entry: "k1-r1", Groups: []proc.Group{{PGID: 100, Start: 7}, {PGID: 101, Start: 9}}},
		{Addr: "exec.b", Entry: "k2-r2", Resumable: true, Groups: []proc.Group{{PGID: 200, Start: 8}}},
		{Addr: "exec.c", Entry: "k3-r3", Ended: true},
	}
	if diff := cmp.Diff(want, left); diff != "" {
		t.Errorf("interrupted runs (-want +got):\n%s", diff)
	}
	if err := l2.Clear(); err != nil {
		t.Fatal(err)
	}
	if _, left, _ := OpenRunLog(dir); len(left) != 0 {
		t.Errorf("after Clear: %v", left)
	}
	// A journal whose runs all ended is removed on Close; one with a run
	// still open stays for the next apply.
	d, _ := l2.Begin("exec.d", "k4-r4", false)
	d.End()
	if err := l2.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, runLogName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("journal left after every run ended: %v", err)
	}
	l3, _, _ := OpenRunLog(dir)
	l3.Begin("exec.e", "k5-r5", false)
	l3.Close()
	if _, left, _ := OpenRunLog(dir); len(left) != 1 || left[0].Addr != "exec.e" {
		t.Errorf("an open run was not kept: %v", left)
	}
}
