package pyenv

import (
	"bytes"
	"context"
	"fmt"
	"github.com/kilnbuild/kiln/engine/proc"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// command is one process the kind starts.
type command struct {
	Path   string
	Args   []string
	Env    []string
	Dir    string
	Stdout io.Writer // nil: the log
	Log    io.Writer // stderr, and stdout unless Stdout is set
}

// run starts c in its own process group and waits for it. When ctx ends,
// the group gets SIGTERM and, grace later, SIGKILL. The error says which
// command failed and how.
func run(ctx context.Context, c command, grace time.Duration) error {
	cmd := exec.Command(c.Path, c.Args...)
	cmd.Env = c.Env
	cmd.Dir = c.Dir
	cmd.Stdout = c.Log
	if c.Stdout != nil {
		cmd.Stdout = c.Stdout
	}
	cmd.Stderr = c.Log
	err := proc.Run(ctx, cmd, grace)
	if ctx.Err() != nil {
		return fmt.Errorf("%s stopped: %w", describeCommand(c), ctx.Err())
	}
	if err != nil {
		return fmt.Errorf("%s: %w", describeCommand(c), err)
	}
	return nil
}

// output runs c and returns its standard output; standard error goes to log.
func output(ctx context.Context, c command, grace time.Duration) ([]byte, error) {
	var out bytes.Buffer
	c.Stdout = &out
	err := run(ctx, c, grace)
	return out.Bytes(), err
}

func describeCommand(c command) string {
	return strings.Join(append([]string{c.Path}, c.Args...), " ")
}

// maxPartialLine bounds what tail keeps of a line still being written
// (progress bars redraw one line with carriage returns).
const maxPartialLine = 64 << 10

// tail keeps the last lines written to it, for error messages.
type tail struct {
	mu    sync.Mutex
	max   int
	lines []string
	part  []byte
}

func newTail(max int) *tail { return &tail{max: max} }

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.part = append(t.part, p...)
	for {
		i := bytes.IndexByte(t.part, '\n')
		if i < 0 {
			break
		}
		t.add(string(t.part[:i]))
		t.part = t.part[i+1:]
	}
	if len(t.part) > maxPartialLine {
		t.part = append([]byte(nil), t.part[len(t.part)-maxPartialLine/4:]...)
	}
	return len(p), nil
}

func (t *tail) add(line string) {
	line = strings.TrimRight(line, "\r")
	if strings.TrimSpace(line) == "" {
		return
	}
	t.lines = append(t.lines, line)
	if len(t.lines) > t.max {
		t.lines = t.lines[len(t.lines)-t.max:]
	}
}

// String is the kept lines, each indented, including an unfinished last one.
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := t.lines
	if len(t.part) > 0 {
		lines = append(append([]string(nil), lines...), string(t.part))
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString("    " + l + "\n")
	}
	return b.String()
}
