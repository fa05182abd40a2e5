package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/proc"
)

// TestLogWriteFailureDoesNotKillTheNode: when the log file cannot be
// written (here /dev/full, which fails every write with ENOSPC, as a full
// disk does), kiln keeps reading the node's output, so the node runs to
// its end instead of dying of SIGPIPE; the error is reported.
func TestLogWriteFailureDoesNotKillTheNode(t *testing.T) {
	var lines []string
	log := openLog("/dev/full", func(s string) { lines = append(lines, s) })
	// Far more output than a pipe holds, in many writes.
	cmd := exec.Command("sh", "-c", `i=0; while [ $i -lt 20000 ]; do echo "line $i of the node's output"; i=$((i+1)); done; echo done`)
	cmd.Stdout, cmd.Stderr = log, log
	runErr := proc.Run(context.Background(), cmd, time.Second)
	log.Close()
	if runErr != nil {
		t.Fatalf("the node failed: %v", runErr)
	}
	if tail := log.Tail(); len(tail) == 0 || tail[len(tail)-1] != "done" {
		t.Errorf("the output was not read to its end: tail %q", tail)
	}
	if len(lines) != 20001 {
		t.Errorf("%d lines reached the terminal, want 20001", len(lines))
	}
	problem := log.Problem()
	if !errors.Is(problem, syscall.ENOSPC) || !strings.Contains(problem.Error(), "disk full") || !strings.Contains(problem.Error(), "/dev/full") {
		t.Errorf("Problem() = %v, want the disk-full error naming the log", problem)
	}
}

// TestLogReadFromWritesWhatWriteWould: os/exec hands a child's output to
// the log through ReadFrom; the file, the lines and the tail are those that
// Write gives for the same bytes, wherever the reads split the lines.
func TestLogReadFromWritesWhatWriteWould(t *testing.T) {
	var out strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&out, "line %d %s\r\n", i, strings.Repeat("x", i%97))
	}
	out.WriteString(strings.Repeat("y", 40<<10) + "\nno newline at the end")
	data := out.String()

	dir := t.TempDir()
	logOf := func(name string, fill func(l *nodeLog)) (file string, lines, tail []string) {
		l := openLog(filepath.Join(dir, name), func(s string) { lines = append(lines, s) })
		fill(l)
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b), lines, l.Tail()
	}
	wantFile, wantLines, wantTail := logOf("write.log", func(l *nodeLog) { _, _ = l.Write([]byte(data)) })
	if wantFile != data {
		t.Fatalf("Write left %d bytes in the file, want %d", len(wantFile), len(data))
	}
	gotFile, gotLines, gotTail := logOf("readfrom.log", func(l *nodeLog) {
		n, err := l.ReadFrom(iotest.HalfReader(strings.NewReader(data)))
		if err != nil || n != int64(len(data)) {
			t.Errorf("ReadFrom = %d, %v; want %d, nil", n, err, len(data))
		}
	})
	if gotFile != wantFile {
		t.Errorf("ReadFrom left %d bytes in the file, Write %d", len(gotFile), len(wantFile))
	}
	if diff := cmp.Diff(wantLines, gotLines); diff != "" {
		t.Errorf("lines (-Write +ReadFrom):\n%s", diff)
	}
	if diff := cmp.Diff(wantTail, gotTail); diff != "" {
		t.Errorf("tail (-Write +ReadFrom):\n%s", diff)
	}

	// A real child's output, larger than a pipe and the buffer, through
	// os/exec.
	cmd := exec.Command("cat", filepath.Join(dir, "write.log"))
	l := openLog(filepath.Join(dir, "child.log"), nil)
	cmd.Stdout, cmd.Stderr = l, l
	if err := proc.Run(context.Background(), cmd, time.Second); err != nil {
		t.Fatal(err)
	}
	l.Close()
	if b, err := os.ReadFile(filepath.Join(dir, "child.log")); err != nil || string(b) != data {
		t.Errorf("the child's log holds %d bytes (%v), want the %d it printed", len(b), err, len(data))
	}
}

// TestLogFolderMadeAtFirstByte: a node that prints nothing leaves neither a
// log file nor its folder; the first byte makes both.
func TestLogFolderMadeAtFirstByte(t *testing.T) {
	dir := t.TempDir()
	quiet := openLog(filepath.Join(dir, "quiet", "run.log"), nil)
	if err := quiet.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "quiet")); !os.IsNotExist(err) {
		t.Errorf("a silent node's log folder: %v, want none", err)
	}
	l := openLog(filepath.Join(dir, "loud", "deeper", "run.log"), nil)
	fmt.Fprintln(l, "hello")
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if p := l.Problem(); p != nil {
		t.Fatal(p)
	}
	b, err := os.ReadFile(filepath.Join(dir, "loud", "deeper", "run.log"))
	if err != nil || string(b) != "hello\n" {
		t.Errorf("log = %q, %v; want hello", b, err)
	}
}
