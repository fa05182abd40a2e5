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

// TestReadRunLogLeavesTheJournal: a plan reads a dead apply's runs as the
// next apply will, and the journal is byte for byte as it was.
func TestReadRunLogLeavesTheJournal(t *testing.T) {
	dir := t.TempDir()
	if HasRunLog(dir) {
		t.Error("HasRunLog before any apply = true")
	}
	if runs, err := ReadRunLog(dir); err != nil || len(runs) != 0 {
		t.Fatalf("ReadRunLog before any apply = %v, %v", runs, err)
	}
	l, _, err := OpenRunLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := l.Begin("exec.a", "k1-r1", true)
	a.GroupStarted(proc.Group{PGID: 100, Start: 7})
	// kiln dies here.
	if !HasRunLog(dir) {
		t.Error("HasRunLog with a run open = false")
	}
	before, err := os.ReadFile(filepath.Join(dir, runLogName))
	if err != nil {
		t.Fatal(err)
	}
	runs, err := ReadRunLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []Interrupted{{Addr: "exec.a", Entry: "k1-r1", Resumable: true, Groups: []proc.Group{{PGID: 100, Start: 7}}}}
	if diff := cmp.Diff(want, runs); diff != "" {
		t.Errorf("ReadRunLog (-want +got):\n%s", diff)
	}
	after, _ := os.ReadFile(filepath.Join(dir, runLogName))
	if diff := cmp.Diff(string(before), string(after)); diff != "" {
		t.Errorf("journal changed by ReadRunLog (-before +after):\n%s", diff)
	}
	if _, left, _ := OpenRunLog(dir); len(left) != 1 {
		t.Errorf("the next apply finds %d runs, want 1", len(left))
	}
}
